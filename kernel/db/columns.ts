import { DataTypes, type InitOptions, type ModelAttributeColumnOptions, type Sequelize } from 'sequelize';

/**
 * Named column shapes the plugin models share, so a model reads as what its columns mean (a tenant, a
 * millisecond time, a hash) and every table spells the same meaning with the same type. Each preset is exactly
 * the column the migrations created (they are checksummed and never change): a preset never adds a key the
 * spelled-out column did not have. A column no other model shares stays spelled out with DataTypes.
 */
export type Column = ModelAttributeColumnOptions;

/** `nullable`: allowNull true (the default is NOT NULL); `unique`: a unique column. */
export interface ColumnOptions {
  nullable?: boolean;
  unique?: boolean;
}

function shaped(type: Column['type'], options: ColumnOptions = {}): Column {
  return { type, allowNull: options.nullable === true, ...(options.unique ? { unique: true } : {}) };
}

export const column = {
  /** A UUID primary key (VARCHAR(36)). */
  id: (): Column => ({ type: DataTypes.STRING(36), primaryKey: true }),
  /** A natural primary key (or one part of it): a VARCHAR of `length` the row is addressed by. */
  key: (length: number): Column => ({ type: DataTypes.STRING(length), primaryKey: true }),
  /** A generated integer primary key, for append-only rows nobody addresses from outside. */
  serialId: (): Column => ({ type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true }),
  /** The tenant a row belongs to (tenant ids are up to 64 characters). */
  tenantId: (): Column => shaped(DataTypes.STRING(64)),
  /** Another row's UUID: a user, a folder, the creator. */
  uuid: (options?: ColumnOptions): Column => shaped(DataTypes.STRING(36), options),
  /** A hex SHA-256 (64 characters): the only form in which tokens and keys are stored; unique. */
  sha256: (): Column => shaped(DataTypes.STRING(64), { unique: true }),
  /** A time as epoch milliseconds (BIGINT: past 2038, and the same number in SQLite and MariaDB). */
  epochMs: (options?: ColumnOptions): Column => shaped(DataTypes.BIGINT, options),
  /** A VARCHAR of `length` (191: the longest a utf8mb4 index takes in older MariaDB). */
  string: (length: number, options?: ColumnOptions): Column => shaped(DataTypes.STRING(length), options),
  /** An INTEGER: a version, a count, a size in pixels. */
  integer: (options?: ColumnOptions): Column => shaped(DataTypes.INTEGER, options),
  /** A TEXT: JSON documents, lists, keys. */
  text: (options?: ColumnOptions): Column => shaped(DataTypes.TEXT, options),
  /** A NOT NULL boolean, false unless set. */
  flag: (): Column => ({ type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false }),
};

/** The options of a plugin table: this kernel's Sequelize, the table's name, no Sequelize-managed timestamps. */
export function tableOf(sequelize: Sequelize, tableName: string): InitOptions & { timestamps: false } {
  return { sequelize, tableName, timestamps: false };
}

/** Rows changed by a raw UPDATE or DELETE run with `QueryTypes.UPDATE`/`DELETE`: the second item of its result, on both dialects. */
export function rowsChanged(meta: unknown): number {
  if (typeof meta === 'number') return meta;
  const m = meta as { changes?: number; affectedRows?: number } | null | undefined;
  return Number(m?.changes ?? m?.affectedRows ?? 0);
}
