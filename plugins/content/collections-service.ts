import { randomUUID } from 'node:crypto';
import { UniqueConstraintError, type Model, type ModelStatic, type Sequelize } from 'sequelize';
import {
  type MigrationDefinition,
  type MigrationRunner,
  ConflictError,
  ValidationError,
  type EventBus,
  type Followed,
  type PluginBootContext,
  modelsOf,
} from '../../kernel/sdk.js';
import {
  defaultLabel,
  defaultSingular,
  optionsText,
  patchedOptions,
  assertSearchFields,
  type CollectionDefinition,
  type CollectionInput,
  type CollectionOptions,
  type CollectionPatch,
} from './collection-schema.js';
import { CollectionExistsError, CollectionNotFoundError } from './errors.js';
import { columnName, columnOf, type FieldDefinition } from './field-types.js';
import { CollectionRow } from './models/collection-row.js';
import { Revision } from './models/revision.js';
import {
  SYSTEM_COLUMNS,
  alterTableMigration,
  createTableMigration,
  dropTableMigration,
  tableNameFor,
  type TableRef,
} from './table-migrations.js';
import { COLLECTION_EVENTS, COLLECTIONS_CHANGED } from './public.js';
import { inverseClash, inversesOf, readView, type InverseField } from './relation-inverse.js';
import { checkFieldChanges } from './field-conversion.js';
import { planSchemaChange, type SchemaPlan } from './schema-plan.js';
import { resolveFields, unknownComponentIssues, usesComponents, type ComponentDefs } from './component-resolution.js';

/** Where the collections find the components their component and blocks fields use (components-service.ts). */
export interface ComponentSource {
  definitions(): ComponentDefs;
  fresh(): Promise<ComponentDefs>;
}
const NO_COMPONENTS: ComponentDefs = new Map();

export interface LoadedCollection extends CollectionDefinition {
  uid: string;
  table: string;
  model: ModelStatic<Model>;
}

/** The public shape of a collection (GET /api/collections). */
export { describeCollection } from './collection-schema.js';

/**
 * Collection schemas: rows in content_collections, each with its own entry table created and altered
 * through the migration ledger (under the migration lock, so two instances never run a step twice).
 * Every instance keeps the definitions and their Sequelize models in memory and reloads them when
 * any instance announces a change on the event bus.
 */
export class CollectionsService {
  private loaded = new Map<string, LoadedCollection>();
  private copy: Followed<Map<string, LoadedCollection>> | null = null;

  private readonly models: { CollectionRow: typeof CollectionRow; Revision: typeof Revision };
  /** The stored definitions with their component fields resolved against the components held now. */
  private view: { stored: Map<string, LoadedCollection>; defs: ComponentDefs; out: Map<string, LoadedCollection> } | null = null;

  constructor(
    private readonly sequelize: Sequelize,
    private readonly migrator: MigrationRunner,
    private readonly events: EventBus,
    private readonly components?: () => ComponentSource,
  ) {
    this.models = modelsOf(sequelize.models, { CollectionRow, Revision });
  }

  private define(row: CollectionRow): LoadedCollection {
    const fields = JSON.parse(row.fields) as FieldDefinition[];
    const options = (row.options ? JSON.parse(row.options) : {}) as CollectionOptions;
    const model = this.sequelize.define(
      `content_${row.name}`,
      { ...SYSTEM_COLUMNS, ...Object.fromEntries(fields.map((f) => [columnName(f), columnOf(f, this.sequelize.getDialect())])) },
      {
        tableName: row.table_name,
        timestamps: false,
      },
    );
    return {
      name: row.name,
      label: row.label,
      singular: row.singular,
      fields,
      version: row.version,
      ...(options.singleton ? { singleton: true } : {}),
      ...(options.previewUrl ? { previewUrl: options.previewUrl } : {}),
      ...(options.drafts ? { drafts: true } : {}),
      ...(options.search ? { search: options.search } : {}),
      uid: row.uid,
      table: row.table_name,
      model,
    };
  }

  /** Read views per loaded definition (viewOf). */
  private readonly views = new WeakMap<LoadedCollection, { key: string; view: LoadedCollection }>();

  /** The definitions in memory as stored (followed across instances once boot connected them). */
  private get stored(): Map<string, LoadedCollection> {
    return this.copy?.current() ?? this.loaded;
  }

  /**
   * The definitions in memory, each component or blocks field carrying its components' definitions
   * (component-values.ts): resolved again whenever the stored definitions or the components change (a
   * component PATCH on any instance changes how the collections using it validate).
   */
  private get current(): Map<string, LoadedCollection> {
    const stored = this.stored;
    const defs = this.components?.().definitions() ?? NO_COMPONENTS;
    if (this.view?.stored !== stored || this.view.defs !== defs) {
      const before = this.view?.defs === defs ? this.view.out : undefined;
      const out = new Map<string, LoadedCollection>();
      for (const [name, c] of stored) {
        const kept = before?.get(name);
        if (!usesComponents(c.fields)) out.set(name, c);
        else if (kept && kept.model === c.model && kept.version === c.version) out.set(name, kept);
        else out.set(name, { ...c, fields: resolveFields(c.fields, defs) });
      }
      this.view = { stored, defs, out };
    }
    return this.view.out;
  }

  /** 400 naming the field when a component or blocks field names an unknown component. */
  private async checkComponents(fields: FieldDefinition[]): Promise<void> {
    if (!usesComponents(fields)) return;
    const source = this.components?.();
    let issues = unknownComponentIssues(fields, source?.definitions() ?? NO_COMPONENTS);
    if (issues.length && source) issues = unknownComponentIssues(fields, await source.fresh());
    if (issues.length) throw new ValidationError(`Invalid fields: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
  }

  /** Reads the definitions; an unchanged one keeps its model. */
  private async read(): Promise<Map<string, LoadedCollection>> {
    const rows = await this.models.CollectionRow.findAll({ order: [['name', 'ASC']] });
    const next = new Map<string, LoadedCollection>();
    for (const row of rows) {
      const known = this.stored.get(row.name);
      next.set(row.name, known && known.version === row.version && known.uid === row.uid ? known : this.define(row));
    }
    return next;
  }

  /** Reads the definitions again now and returns them (a failed read throws). */
  private async reload(): Promise<Map<string, LoadedCollection>> {
    if (this.copy) return this.copy.read();
    return (this.loaded = await this.read());
  }

  async refresh(): Promise<void> {
    await this.reload();
  }

  /**
   * Reloads when another instance (or this one) changes a schema, and after the events of the others were
   * lost a while: a followed copy (kernel/follow.ts). Resolves after the first read (a failed one throws).
   */
  async follow(follow: PluginBootContext['follow']): Promise<void> {
    this.copy = follow({ name: 'collections', load: () => this.read(), on: [COLLECTIONS_CHANGED], initial: this.loaded });
    if (!(await this.copy.ready())) await this.copy.read();
  }

  private async changed(name: string, change: keyof typeof COLLECTION_EVENTS): Promise<void> {
    await this.refresh();
    await this.events.publish(COLLECTIONS_CHANGED, { name });
    await this.events.publish(COLLECTION_EVENTS[change], { collection: name });
  }

  list(): LoadedCollection[] {
    return [...this.current.values()];
  }

  /** The inverse fields collection `name` shows (relation-inverse.ts). */
  inverses(name: string): InverseField[] {
    return inversesOf(name, this.current.values());
  }

  /** The collection as reads see it: with its inverse fields (relation-inverse.ts readView); undefined when unknown. */
  findForRead(name: string): LoadedCollection | undefined {
    const c = this.current.get(name);
    return c && this.viewOf(c);
  }

  /** Every collection as reads see it (the GraphQL schema is built from these). */
  listForRead(): LoadedCollection[] {
    return this.list().map((c) => this.viewOf(c));
  }

  /** `c` with its inverse fields: the same object while neither it nor its inverses change (GraphQL rebuilds on a new one). */
  viewOf(c: LoadedCollection): LoadedCollection {
    const inverses = this.inverses(c.name);
    const key = JSON.stringify(inverses.map((i) => [i.name, i.source, i.field.name, i.field.cardinality ?? 'one']));
    const known = this.views.get(c);
    if (known?.key === key) return known.view;
    const view = readView(c, inverses);
    this.views.set(c, { key, view });
    return view;
  }

  /** The collection as held now (no read): undefined when there is none. */
  find(name: string): LoadedCollection | undefined {
    return this.current.get(name);
  }

  /**
   * Whether the stored schema differs from this copy (another instance changed it and its event has
   * not arrived yet); if so the definitions are reloaded.
   */
  async reloadIfChanged(c: LoadedCollection): Promise<boolean> {
    const row = await this.models.CollectionRow.findByPk(c.name, { attributes: ['version', 'uid'] });
    if (row && row.version === c.version && row.uid === c.uid) return false;
    await this.reload();
    return true;
  }

  /** The collection, reloading once on a miss (another instance may have just created it). */
  async get(name: string): Promise<LoadedCollection> {
    let found = this.current.get(name);
    if (!found) {
      await this.reload();
      found = this.current.get(name);
    }
    if (!found) throw new CollectionNotFoundError(name);
    return found;
  }

  private async checkRelations(name: string, fields: FieldDefinition[]): Promise<void> {
    for (const [i, f] of fields.entries()) {
      if (f.type !== 'relation' || f.collection === name) continue;
      if (!(await this.models.CollectionRow.findByPk(f.collection!))) {
        throw new ValidationError(`Field '${f.name}' relates to an unknown collection '${f.collection}'`, [
          { path: `body.fields.${i}.collection`, message: 'unknown collection' },
        ]);
      }
    }
    const clash = inverseClash(name, fields, [...this.current.values()]);
    if (clash) {
      const [i, message] = clash;
      throw new ValidationError(`Field '${fields[i]!.name}': ${message}`, [{ path: `body.fields.${i}`, message }]);
    }
  }

  private async migrate(step: MigrationDefinition, fieldNames: string[]): Promise<void> {
    try {
      await this.migrator.run([step]);
    } catch (err) {
      // umzug wraps the driver's error as its cause.
      const cause = (err as { cause?: unknown }).cause;
      if (err instanceof UniqueConstraintError || cause instanceof UniqueConstraintError) {
        throw new ConflictError(`Existing entries have duplicate values in ${fieldNames.join(', ')}; make them unique first`);
      }
      throw err;
    }
  }

  /**
   * A collection's name and singular become GraphQL fields (`posts`, `post`): they must differ from
   * each other and from every other collection's name and singular.
   */
  private async checkNames(name: string, singular: string): Promise<void> {
    if (singular === name) {
      throw new ValidationError(`The singular of '${name}' must differ from its name (for example '${name}Item')`, [
        { path: 'body.singular', message: 'same as the name' },
      ]);
    }
    const others = (await this.models.CollectionRow.findAll({ attributes: ['name', 'singular'] })).filter((r) => r.name !== name);
    const clash = others.find((r) => [r.name, r.singular].includes(name) || [r.name, r.singular].includes(singular));
    if (clash)
      throw new ConflictError(`'${name}' / '${singular}' would clash with the collection '${clash.name}' (singular '${clash.singular}')`);
  }

  async create(input: CollectionInput): Promise<LoadedCollection> {
    await this.checkNames(input.name, input.singular ?? defaultSingular(input.name));
    await this.checkRelations(input.name, input.fields);
    await this.checkComponents(input.fields);
    const now = Date.now();
    const ref: TableRef = { name: input.name, uid: randomUUID(), table: tableNameFor(input.name) };
    try {
      await this.models.CollectionRow.create({
        name: input.name,
        uid: ref.uid,
        label: input.label ?? defaultLabel(input.name),
        singular: input.singular ?? defaultSingular(input.name),
        fields: JSON.stringify(input.fields),
        options: optionsText({
          singleton: input.singleton,
          previewUrl: input.previewUrl ?? undefined,
          drafts: input.drafts,
          search: input.search ?? undefined,
        }),
        table_name: ref.table,
        version: 1,
        created_at: now,
        updated_at: now,
      });
    } catch (err) {
      if (err instanceof UniqueConstraintError) throw new CollectionExistsError(input.name);
      throw err;
    }
    try {
      await this.migrate(createTableMigration(ref, input.fields, { singleton: input.singleton }), []);
    } catch (err) {
      await this.models.CollectionRow.destroy({ where: { name: input.name, uid: ref.uid } });
      throw err;
    }
    await this.changed(input.name, 'create');
    return this.get(input.name);
  }

  /**
   * A new label, singular or field list. The version is claimed first (a concurrent change answers 409),
   * then the table is altered; if that fails the claim is undone.
   */
  /** What `patch` would do to the stored values (schema-plan.ts), changing nothing. */
  async planChange(name: string, patch: CollectionPatch): Promise<SchemaPlan> {
    const c = await this.get(name);
    const row = await this.models.CollectionRow.findByPk(name);
    checkFieldChanges(row ? (JSON.parse(row.fields) as FieldDefinition[]) : c.fields, patch.fields ?? c.fields);
    return planSchemaChange(
      { ...c, version: row?.version ?? c.version },
      row ? (JSON.parse(row.fields) as FieldDefinition[]) : c.fields,
      patch,
    );
  }

  async update(name: string, patch: CollectionPatch): Promise<LoadedCollection> {
    const row = await this.models.CollectionRow.findByPk(name);
    if (!row) throw new CollectionNotFoundError(name);
    const before = JSON.parse(row.fields) as FieldDefinition[];
    const after = patch.fields ?? before;
    const old = new Map(before.map((f) => [f.name, f]));
    checkFieldChanges(before, after);
    if (patch.singular) await this.checkNames(name, patch.singular);
    await this.checkRelations(name, after);
    await this.checkComponents(after);
    const version = row.version + 1;
    const options = (row.options ? JSON.parse(row.options) : {}) as CollectionOptions;
    assertSearchFields(patch.search === undefined ? options.search : patch.search, after);
    const [claimed] = await this.models.CollectionRow.update(
      {
        label: patch.label ?? row.label,
        singular: patch.singular ?? row.singular,
        fields: JSON.stringify(after),
        ...patchedOptions(options, patch),
        version,
        updated_at: Date.now(),
      },
      { where: { name, version: row.version } },
    );
    if (claimed === 0) throw new ConflictError(`Collection '${name}' was changed at the same time; reload it and try again`);
    try {
      const changedIndexes = after.filter((f) => f.unique && !old.get(f.name)?.unique).map((f) => f.name);
      await this.migrate(alterTableMigration({ name, uid: row.uid, table: row.table_name }, version, before, after), changedIndexes);
    } catch (err) {
      await this.models.CollectionRow.update(
        { label: row.label, singular: row.singular, fields: row.fields, options: row.options, version: row.version },
        { where: { name, version } },
      );
      throw err;
    }
    await this.changed(name, 'update');
    return this.get(name);
  }

  /** Drops the collection, its table and its entries' revisions. */
  async remove(name: string): Promise<void> {
    const row = await this.models.CollectionRow.findByPk(name);
    if (!row) throw new CollectionNotFoundError(name);
    const users = this.list().filter((c) => c.name !== name && c.fields.some((f) => f.type === 'relation' && f.collection === name));
    if (users.length)
      throw new ConflictError(`Collection '${name}' is the target of relation fields in ${users.map((c) => c.name).join(', ')}`);
    await this.migrate(dropTableMigration({ name, uid: row.uid, table: row.table_name }), []);
    await this.models.CollectionRow.destroy({ where: { name, uid: row.uid } });
    await this.models.Revision.destroy({ where: { collection: name } });
    // Its entries' versions in other locales (entry-locales.ts) go with them.
    await this.sequelize.query('DELETE FROM content_entry_locales WHERE collection = :name', { replacements: { name } });
    // And their working drafts (entry-drafts.ts).
    await this.sequelize.query('DELETE FROM content_entry_drafts WHERE collection = :name', { replacements: { name } });
    await this.sequelize.query('DELETE FROM content_entry_locale_times WHERE collection = :name', { replacements: { name } });
    await this.changed(name, 'delete');
  }
}
