import { QueryTypes, type DataType } from 'sequelize';
import type { MigrationDefinition } from '../../kernel/sdk.js';
import { columnName, type FieldDefinition } from './field-types.js';
import { addAuthorIndex, indexName, wantsIndex } from './table-migrations.js';

/** The content plugin's own tables; each collection's table comes from table-migrations.ts at run time. */
export const CONTENT_MIGRATIONS: MigrationDefinition[] = [
  {
    name: '0001-collections-revisions',
    async up({ queryInterface, DataTypes, sequelize }) {
      await queryInterface.createTable('content_collections', {
        name: { type: DataTypes.STRING(48), primaryKey: true },
        uid: { type: DataTypes.STRING(36), allowNull: false },
        label: { type: DataTypes.STRING(191), allowNull: false },
        singular: { type: DataTypes.STRING(48), allowNull: false },
        fields: { type: DataTypes.TEXT, allowNull: false },
        table_name: { type: DataTypes.STRING(64), allowNull: false },
        version: { type: DataTypes.INTEGER, allowNull: false },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
        updated_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.createTable('content_revisions', {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        collection: { type: DataTypes.STRING(48), allowNull: false },
        entry_id: { type: DataTypes.STRING(36), allowNull: false },
        version: { type: DataTypes.INTEGER, allowNull: false },
        data: { type: sequelize.getDialect() === 'sqlite' ? DataTypes.TEXT : DataTypes.TEXT('medium'), allowNull: false },
        action: { type: DataTypes.STRING(16), allowNull: false },
        created_by: { type: DataTypes.STRING(36), allowNull: true },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.addIndex('content_revisions', ['collection', 'entry_id', 'version'], { unique: true, name: 'content_revisions_entry' });
    },
  },
  {
    name: '0002-publish-schedules',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('content_schedules', {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        collection: { type: DataTypes.STRING(48), allowNull: false },
        entry_id: { type: DataTypes.STRING(36), allowNull: false },
        publish_at: { type: DataTypes.BIGINT, allowNull: false },
        created_by: { type: DataTypes.STRING(64), allowNull: true },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.addIndex('content_schedules', ['tenant_id', 'collection', 'entry_id'], { unique: true, name: 'content_schedules_entry' });
      await queryInterface.addIndex('content_schedules', ['publish_at'], { name: 'content_schedules_due' });
    },
  },
  {
    name: '0003-preview-links',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('content_preview_links', {
        token_hash: { type: DataTypes.STRING(64), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        collection: { type: DataTypes.STRING(48), allowNull: false },
        entry_id: { type: DataTypes.STRING(36), allowNull: false },
        expires_at: { type: DataTypes.BIGINT, allowNull: false },
        created_by: { type: DataTypes.STRING(64), allowNull: true },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.addIndex('content_preview_links', ['tenant_id', 'collection', 'entry_id'], { name: 'content_preview_links_entry' });
      await queryInterface.addIndex('content_preview_links', ['expires_at'], { name: 'content_preview_links_expiry' });
    },
  },
  {
    // The lists' default order (newest first, the id breaking ties) read from an index, with the status
    // filter (readers without content:write) and without it; the first replaces (tenant_id, status, created_at).
    // Tables created later get the same indexes from table-migrations.ts.
    name: '0004-list-order-indexes',
    async up({ queryInterface, sequelize }) {
      const rows = await sequelize.query<{ uid: string; table_name: string }>('SELECT uid, table_name FROM content_collections', { type: QueryTypes.SELECT });
      for (const row of rows) {
        const prefix = `ix_${row.uid.slice(0, 8)}_`;
        await queryInterface.addIndex(row.table_name, { name: `${prefix}list_status`, fields: ['tenant_id', 'status', { name: 'created_at', order: 'DESC' }, 'id'] });
        await queryInterface.addIndex(row.table_name, { name: `${prefix}list`, fields: ['tenant_id', { name: 'created_at', order: 'DESC' }, 'id'] });
        await queryInterface.removeIndex(row.table_name, `${prefix}status`);
      }
    },
  },
  {
    // Collection options beyond the field list, as JSON (`singleton` first; later drafts, previews, locales).
    name: '0005-collection-options',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.addColumn('content_collections', 'options', { type: DataTypes.TEXT, allowNull: true });
    },
  },
  {
    // Reusable components (API decisions, "Content model v2"): named field lists, shared by every tenant.
    name: '0006-components',
    async up({ queryInterface, DataTypes }) {
      const required = (type: DataType) => ({ type, allowNull: false });
      const name = { type: DataTypes.STRING(48), primaryKey: true };
      const [label, fields, version] = [required(DataTypes.STRING(191)), required(DataTypes.TEXT), required(DataTypes.INTEGER)];
      const epochMs = required(DataTypes.BIGINT);
      await queryInterface.createTable('content_components', { name, label, fields, version, created_at: epochMs, updated_at: epochMs });
    },
  },
  {
    // Every one-relation indexed on (tenant_id, column), as table-migrations.ts now creates them: a filter through a
    // relation (`{"author.name": ...}`) finds the entries by the column instead of scanning the collection.
    name: '0007-relation-indexes',
    async up({ queryInterface, sequelize }) {
      const rows = await sequelize.query<{ uid: string; name: string; table_name: string; fields: string }>(
        'SELECT uid, name, table_name, fields FROM content_collections',
        { type: QueryTypes.SELECT },
      );
      for (const row of rows) {
        const ref = { name: row.name, uid: row.uid, table: row.table_name };
        const have = new Set(((await queryInterface.showIndex(row.table_name)) as Array<{ name: string }>).map((i) => i.name));
        for (const f of JSON.parse(row.fields) as FieldDefinition[]) {
          const name = indexName(ref, columnName(f));
          if (!wantsIndex(f) || have.has(name)) continue;
          await queryInterface.addIndex(row.table_name, ['tenant_id', columnName(f)], { unique: Boolean(f.unique), name });
        }
      }
    },
  },
  {
    // Locales (API decisions, "Locales"): configuration of the installation, shared by every tenant as collections and
    // components are; a new installation (and one made before locales) has `en` as its default.
    name: '0008-locales',
    async up({ queryInterface, DataTypes }) {
      const epochMs = { type: DataTypes.BIGINT, allowNull: false };
      await queryInterface.createTable('content_locales', {
        code: { type: DataTypes.STRING(35), primaryKey: true },
        name: { type: DataTypes.STRING(191), allowNull: false },
        is_default: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        fallback: { type: DataTypes.STRING(35), allowNull: true },
        created_at: epochMs,
        updated_at: epochMs,
      });
      const now = Date.now();
      await queryInterface.bulkInsert('content_locales', [
        { code: 'en', name: 'English', is_default: true, fallback: null, created_at: now, updated_at: now },
      ]);
    },
  },
  {
    // Localized fields (API decisions, "Locales"; entry-locales.ts): an entry's version in a locale other than the default
    // (its localized values as JSON, its own status). The default locale's values stay in the collection's table.
    name: '0009-entry-locales',
    async up({ queryInterface, DataTypes, sequelize }) {
      const required = (type: DataType) => ({ type, allowNull: false });
      await queryInterface.createTable('content_entry_locales', {
        tenant_id: { type: DataTypes.STRING(64), primaryKey: true },
        collection: { type: DataTypes.STRING(48), primaryKey: true },
        entry_id: { type: DataTypes.STRING(36), primaryKey: true },
        locale: { type: DataTypes.STRING(35), primaryKey: true },
        data: required(sequelize.getDialect() === 'sqlite' ? DataTypes.TEXT : DataTypes.TEXT('medium')),
        status: required(DataTypes.STRING(16)),
        updated_by: { type: DataTypes.STRING(64), allowNull: true },
        created_at: required(DataTypes.BIGINT),
        updated_at: required(DataTypes.BIGINT),
      });
      await queryInterface.addIndex('content_entry_locales', ['collection', 'entry_id'], { name: 'content_entry_locales_entry' });
    },
  },
  {
    // Revisions per locale (docs/features/localisation.md): a write of an entry's version in a non-default locale
    // records a revision naming that locale; null is a revision of the entry's row (the default locale's).
    name: '0010-revision-locales',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.addColumn('content_revisions', 'locale', { type: DataTypes.STRING(35), allowNull: true });
    },
  },
  {
    // Scheduled publishing per locale (publish-schedules.ts): one schedule per entry and locale; '' is the entry's row
    // (the default locale's version), so the unique index holds for it too (NULLs would not collide).
    name: '0011-schedule-locales',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.addColumn('content_schedules', 'locale', { type: DataTypes.STRING(35), allowNull: false, defaultValue: '' });
      await queryInterface.removeIndex('content_schedules', 'content_schedules_entry');
      await queryInterface.addIndex('content_schedules', ['tenant_id', 'collection', 'entry_id', 'locale'], {
        unique: true,
        name: 'content_schedules_entry_locale',
      });
    },
  },
  {
    // Scheduled unpublishing beside publishing (publish-schedules.ts): `action` says which; one of each per entry and
    // locale. Existing rows publish.
    name: '0012-schedule-actions',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.addColumn('content_schedules', 'action', { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'publish' });
      await queryInterface.removeIndex('content_schedules', 'content_schedules_entry_locale');
      await queryInterface.addIndex('content_schedules', ['tenant_id', 'collection', 'entry_id', 'locale', 'action'], {
        unique: true,
        name: 'content_schedules_entry_action',
      });
    },
  },
  {
    // Working drafts (entry-drafts.ts, docs/features/drafts.md): one per entry and locale ('' is the entry's row, the
    // default locale's version), beside the published entry: the fields written to the draft, as JSON.
    name: '0013-entry-drafts',
    async up({ queryInterface, DataTypes, sequelize }) {
      const required = (type: DataType) => ({ type, allowNull: false });
      await queryInterface.createTable('content_entry_drafts', {
        tenant_id: { type: DataTypes.STRING(64), primaryKey: true },
        collection: { type: DataTypes.STRING(48), primaryKey: true },
        entry_id: { type: DataTypes.STRING(36), primaryKey: true },
        locale: { type: DataTypes.STRING(35), primaryKey: true },
        data: required(sequelize.getDialect() === 'sqlite' ? DataTypes.TEXT : DataTypes.TEXT('medium')),
        version: required(DataTypes.INTEGER),
        base_version: required(DataTypes.INTEGER),
        created_by: { type: DataTypes.STRING(64), allowNull: true },
        updated_by: { type: DataTypes.STRING(64), allowNull: true },
        created_at: required(DataTypes.BIGINT),
        updated_at: required(DataTypes.BIGINT),
      });
      await queryInterface.addIndex('content_entry_drafts', ['collection', 'entry_id'], { name: 'content_entry_drafts_entry' });
    },
  },
  {
    // When each locale's localized values of an entry last changed (entry-locales.ts: `_localeUpdatedAt`, the admin UI's
    // "out of date"): a version's in content_entry_locales.values_at (null: its updated_at), the default locale's in
    // content_entry_locale_times keyed by the default's code (none: the entry's createdAt). No backfill.
    name: '0014-locale-values-times',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.addColumn('content_entry_locales', 'values_at', { type: DataTypes.BIGINT, allowNull: true });
      await queryInterface.createTable('content_entry_locale_times', {
        tenant_id: { type: DataTypes.STRING(64), primaryKey: true },
        collection: { type: DataTypes.STRING(48), primaryKey: true },
        entry_id: { type: DataTypes.STRING(36), primaryKey: true },
        locale: { type: DataTypes.STRING(35), primaryKey: true },
        values_at: { type: DataTypes.BIGINT, allowNull: false },
      });
    },
  },
  {
    // A preview link shows the entry in the locale it was made in (preview-links.ts; null: the default locale).
    name: '0015-preview-link-locales',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.addColumn('content_preview_links', 'locale', { type: DataTypes.STRING(35), allowNull: true });
    },
  },
  {
    // The rules of roles most often keep a role to its own entries and the published ones ({$or: [{createdBy:
    // "$user"}, {status: "published"}]}): a list's count under such a rule reads this index alone, not every row.
    // Tables created later get it from table-migrations.ts (addAuthorIndex).
    name: '0016-entry-author-index',
    async up({ queryInterface, sequelize }) {
      const rows = await sequelize.query<{ uid: string; table_name: string }>('SELECT uid, table_name FROM content_collections', { type: QueryTypes.SELECT });
      for (const row of rows) await addAuthorIndex(queryInterface, { uid: row.uid, table: row.table_name });
    },
  },
  {
    // A change of the default locale in progress (locale-default-move.ts): at most one row, the change (from, to, the
    // locale list before and the one to write at the end) and how far its batches got (collection, last entry id,
    // step), so a change interrupted (the process killed) is resumed from there on the next start.
    name: '0017-locale-moves',
    async up({ queryInterface, DataTypes }) {
      const required = (type: DataType) => ({ type, allowNull: false });
      await queryInterface.createTable('content_locale_moves', {
        id: { type: DataTypes.STRING(16), primaryKey: true },
        from_code: required(DataTypes.STRING(35)),
        to_code: required(DataTypes.STRING(35)),
        before_list: required(DataTypes.TEXT),
        next_list: required(DataTypes.TEXT),
        collection: { type: DataTypes.STRING(48), allowNull: true },
        after_id: { type: DataTypes.STRING(36), allowNull: true },
        step: required(DataTypes.INTEGER),
        moved: required(DataTypes.INTEGER),
        started_at: required(DataTypes.BIGINT),
        updated_at: required(DataTypes.BIGINT),
      });
    },
  },
  {
    // Full-text search (search-engine.ts, docs/features/search.md): one document per entry and locale ('' the default),
    // searched by SQLite FTS5 (an external-content table kept in step with the documents by triggers, in the same
    // transaction) or by MariaDB's InnoDB FULLTEXT index (stop words off: every word is found). Each collection's
    // documents are made on the next start (content_search_state names the fields they were made from).
    name: '0018-search',
    async up({ queryInterface, DataTypes, sequelize }) {
      const sqlite = sequelize.getDialect() === 'sqlite';
      const required = (type: DataType) => ({ type, allowNull: false });
      await queryInterface.createTable('content_search_docs', {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        tenant_id: required(DataTypes.STRING(64)),
        collection: required(DataTypes.STRING(48)),
        entry_id: required(DataTypes.STRING(36)),
        locale: required(DataTypes.STRING(35)),
        published: required(DataTypes.INTEGER),
        body: required(sqlite ? DataTypes.TEXT : DataTypes.TEXT('medium')),
      });
      await queryInterface.addIndex('content_search_docs', ['collection', 'entry_id', 'locale'], { name: 'content_search_docs_entry' });
      await queryInterface.createTable('content_search_state', {
        collection: { type: DataTypes.STRING(48), primaryKey: true },
        signature: required(DataTypes.STRING(64)),
      });
      if (!sqlite) {
        // One connection for both (the setting is the session's, read when the index is made).
        await sequelize.transaction(async (transaction) => {
          await sequelize.query('SET SESSION innodb_ft_enable_stopword = 0', { transaction });
          await sequelize.query('ALTER TABLE content_search_docs ADD FULLTEXT INDEX content_search_docs_body (body)', { transaction });
        });
        return;
      }
      await sequelize.query(
        `CREATE VIRTUAL TABLE content_search_fts USING fts5(body, content='content_search_docs', content_rowid='id', tokenize='unicode61 remove_diacritics 2', prefix='2 3')`,
      );
      await sequelize.query(
        `CREATE TRIGGER content_search_docs_ai AFTER INSERT ON content_search_docs BEGIN INSERT INTO content_search_fts(rowid, body) VALUES (new.id, new.body); END`,
      );
      await sequelize.query(
        `CREATE TRIGGER content_search_docs_ad AFTER DELETE ON content_search_docs BEGIN INSERT INTO content_search_fts(content_search_fts, rowid, body) VALUES ('delete', old.id, old.body); END`,
      );
      await sequelize.query(
        `CREATE TRIGGER content_search_docs_au AFTER UPDATE ON content_search_docs BEGIN INSERT INTO content_search_fts(content_search_fts, rowid, body) VALUES ('delete', old.id, old.body); INSERT INTO content_search_fts(rowid, body) VALUES (new.id, new.body); END`,
      );
    },
  },
];
