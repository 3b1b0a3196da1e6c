/** The adapters of the resource types (see resources.ts: what each is and never does), and what they share. */
import { randomUUID } from 'node:crypto';
import { QueryTypes, type Model, type ModelStatic, type Sequelize, type Transaction } from 'sequelize';
import { optional, type ContainerServices } from '../../kernel/sdk.js';
import type { CollectionsService, FieldDefinition } from '../content/public.js';
import type { DbResource, ResourceAdapter, ResourceType } from './resources.js';
import { componentAdapter } from './component-adapter.js';
import { localeAdapter } from './locale-adapter.js';
import { roleAdapter } from './role-adapter.js';

const DASHBOARD_SETTING = 'DASHBOARD_DEFAULT_WIDGETS';
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

type Cradle = ContainerServices & Record<string, any>;
type AnyModel = ModelStatic<Model> & Record<string, any>;

/** What the adapters share: the container, the models, the settings table and the collections service. */
interface AdapterKit {
  cradle: () => Cradle;
  sequelize: () => Sequelize;
  model: (name: string) => AnyModel;
  settingsAvailable: () => boolean;
  settingsRows: (tenantId: string) => Promise<Array<{ key: string; value: string }>>;
  privateKeys: (tenantId: string) => Promise<Set<string>>;
  writeSetting: (tenantId: string, key: string, value: unknown, t?: Transaction) => Promise<void>;
  parse: (text: string) => unknown;
  collections: () => CollectionsService;
  schemaOf: (data: Record<string, unknown>) => { label: string; singular: string; fields: FieldDefinition[] };
}

function adapterKit(cradle: () => Cradle): AdapterKit {
  const sequelize = (): Sequelize => cradle().sequelize;
  const model = (name: string): AnyModel => {
    const m = cradle().models[name];
    if (!m) throw new Error(`Model '${name}' is not registered`);
    return m as AnyModel;
  };
  const settingsAvailable = () => optional(cradle(), 'settings') !== undefined;

  const settingsRows = async (tenantId: string) =>
    sequelize().query<{ key: string; value: string }>(
      'SELECT `key`, value FROM cms_settings WHERE tenant_id = ? AND is_private = ? ORDER BY `key`',
      {
        replacements: [tenantId, false],
        type: QueryTypes.SELECT,
      },
    );
  const privateKeys = async (tenantId: string) =>
    new Set(
      (
        await sequelize().query<{ key: string }>('SELECT `key` FROM cms_settings WHERE tenant_id = ? AND is_private = ?', {
          replacements: [tenantId, true],
          type: QueryTypes.SELECT,
        })
      ).map((r) => r.key),
    );
  const writeSetting = async (tenantId: string, key: string, value: unknown, t?: Transaction) => {
    if ((await privateKeys(tenantId)).has(key)) throw new Error(`Setting '${key}' is private: configuration promotion never writes it`);
    const rows = await sequelize().query('SELECT `key` FROM cms_settings WHERE tenant_id = ? AND `key` = ?', {
      replacements: [tenantId, key],
      type: QueryTypes.SELECT,
      transaction: t,
    });
    if (rows.length) {
      await sequelize().query('UPDATE cms_settings SET value = ?, updated_at = ? WHERE tenant_id = ? AND `key` = ? AND is_private = ?', {
        replacements: [JSON.stringify(value), Date.now(), tenantId, key, false],
        transaction: t,
      });
    } else {
      await sequelize().query('INSERT INTO cms_settings (tenant_id, `key`, value, is_private, updated_at) VALUES (?, ?, ?, ?, ?)', {
        replacements: [tenantId, key, JSON.stringify(value), false, Date.now()],
        transaction: t,
      });
    }
  };
  const parse = (text: string): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  };

  const collections = (): CollectionsService => cradle().collections as CollectionsService;
  const schemaOf = (data: Record<string, unknown>) => ({
    label: data.label as string,
    singular: data.singular as string,
    fields: data.fields as FieldDefinition[],
  });
  return { cradle, sequelize, model, settingsAvailable, settingsRows, privateKeys, writeSetting, parse, collections, schemaOf };
}

/** Collection schemas: DDL through the content plugin, outside the apply transaction. */
function collectionAdapter(kit: AdapterKit): ResourceAdapter {
  const { collections, schemaOf } = kit;
  const adapter: ResourceAdapter = {
    type: 'collection',
    label: 'Collection schemas',
    readOnlyReason: null,
    outsideTransaction: true,
    available: () => true,
    async read() {
      await collections().refresh();
      const list = collections().list();
      const out: DbResource[] = [];
      for (const c of list) {
        const entries = await c.model.count();
        const users = list.filter((o) => o.name !== c.name && o.fields.some((f) => f.type === 'relation' && f.collection === c.name));
        out.push({
          type: 'collection' as const,
          name: c.name,
          uuid: c.uid,
          id: c.uid,
          data: { label: c.label, singular: c.singular, fields: c.fields as unknown },
          protectedReason: entries
            ? `it has ${entries} ${entries === 1 ? 'entry' : 'entries'} (configuration promotion never drops data: delete it with the collections API)`
            : users.length
              ? `it is the target of relation fields in ${users.map((o) => o.name).join(', ')}`
              : null,
          entries,
        });
      }
      return out;
    },
    check(data) {
      if (!isObject(data) || typeof data.label !== 'string' || typeof data.singular !== 'string' || !Array.isArray(data.fields))
        return 'data must be {label, singular, fields[]}';
      if (!data.fields.every((f) => isObject(f) && typeof f.name === 'string' && typeof f.type === 'string'))
        return 'data.fields must be field definitions {name, type, ...}';
      return null;
    },
    updateIssue(current, name, data) {
      const prefix = `Collection '${current.name}'`;
      if (name !== current.name)
        return `${prefix} would be renamed to '${name}': collections are never renamed (create the new one with the collections API)`;
      const before = new Map(((current.data.fields as FieldDefinition[]) ?? []).map((f) => [f.name, f]));
      const after = data.fields as FieldDefinition[];
      for (const f of after) {
        const was = before.get(f.name);
        if (was && was.type !== f.type)
          return `${prefix}: field '${f.name}' would change its type (${was.type} -> ${f.type}), which the collections service refuses: add a new field and remove the old one with the collections API`;
        if (was && (was.collection ?? null) !== (f.collection ?? null))
          return `${prefix}: field '${f.name}' would change its relation target (${String(was.collection)} -> ${String(f.collection)}), which the collections service refuses: add a new field and remove the old one with the collections API`;
      }
      const removed = [...before.keys()].filter((n) => !after.some((f) => f.name === n));
      if (removed.length && current.entries)
        return `${prefix}: the file removes the field(s) ${removed.join(', ')} of a collection with ${current.entries} entries, which would drop their data: remove fields with the collections API`;
      return null;
    },
    async create(_tenantId, name, _uuid, data) {
      return (await collections().create({ name, ...schemaOf(data) })).uid;
    },
    async update(_tenantId, current, _name, data) {
      return (await collections().update(current.name, schemaOf(data))).uid;
    },
    async remove(_tenantId, current) {
      const found = (await adapter.read('')).find((d) => d.uuid === current.uuid);
      if (!found) return;
      if (found.entries) throw new Error(`Collection '${current.name}' has entries now: configuration promotion never drops data`);
      await collections().remove(current.name);
    },
    async invalidate() {
      // The collections service reloads its definitions and announces the change itself.
    },
  };
  return adapter;
}

/** Named themes (config, presetSource); the active and default flags stay per environment. */
function themeAdapter(kit: AdapterKit): ResourceAdapter {
  const { cradle, model, parse } = kit;
  return {
    type: 'theme',
    label: 'Themes',
    readOnlyReason: null,
    available: () => true,
    async read(tenantId) {
      const rows = await model('ThemeRecord').findAll({ where: { tenant_id: tenantId }, order: [['name', 'ASC']] });
      return rows.map((r: any) => ({
        type: 'theme' as const,
        name: String(r.name),
        uuid: String(r.id),
        id: String(r.id),
        data: { config: parse(String(r.config)), presetSource: r.preset_source ?? null },
        protectedReason: r.is_active ? 'the active theme cannot be deleted' : r.is_default ? 'the default theme cannot be deleted' : null,
      }));
    },
    check(data) {
      if (!isObject(data) || !isObject(data.config)) return 'data must be {config, presetSource}';
      if (data.presetSource !== null && data.presetSource !== undefined && typeof data.presetSource !== 'string')
        return 'data.presetSource must be a string or null';
      const css = isObject(data.config.adminTheme) ? data.config.adminTheme.customCss : undefined;
      if (css !== undefined && typeof css !== 'string') return 'config.adminTheme.customCss must be a string';
      // The themes plugin sanitises customCss on its own routes; files must carry CSS it would keep.
      if (typeof css === 'string' && /url\s*\(|@import|expression\s*\(|<\/|javascript:/i.test(css)) {
        return 'config.adminTheme.customCss holds what the CSS sanitiser removes (url(), @import, expression(), markup): export it from a sanitised theme';
      }
      return null;
    },
    async create(tenantId, name, uuid, data, t) {
      const Theme = model('ThemeRecord');
      const taken = await Theme.findByPk(uuid, { transaction: t });
      const now = Date.now();
      const id = taken ? randomUUID() : uuid;
      await Theme.create(
        {
          id,
          tenant_id: tenantId,
          name,
          is_active: false,
          is_default: false,
          config: JSON.stringify(data.config),
          preset_source: (data.presetSource as string | null) ?? null,
          created_at: now,
          updated_at: now,
        },
        { transaction: t },
      );
      return id;
    },
    async update(tenantId, current, name, data, t) {
      await model('ThemeRecord').update(
        { name, config: JSON.stringify(data.config), preset_source: (data.presetSource as string | null) ?? null, updated_at: Date.now() },
        { where: { tenant_id: tenantId, id: current.uuid }, transaction: t },
      );
      return current.id;
    },
    async remove(tenantId, current, t) {
      await model('ThemeRecord').destroy({
        where: { tenant_id: tenantId, id: current.uuid, is_active: false, is_default: false },
        transaction: t,
      });
    },
    async invalidate(tenantId) {
      await optional(cradle(), 'themes')?.changed(tenantId);
    },
  };
}

/** Public settings (never a private one, never DASHBOARD_DEFAULT_WIDGETS). */
function settingAdapter(kit: AdapterKit): ResourceAdapter {
  const { cradle, settingsAvailable, settingsRows, writeSetting, parse } = kit;
  return {
    type: 'setting',
    label: 'Public settings',
    readOnlyReason: null,
    available: settingsAvailable,
    async read(tenantId) {
      return (await settingsRows(tenantId))
        .filter((r) => r.key !== DASHBOARD_SETTING)
        .map((r) => ({
          type: 'setting' as const,
          name: r.key,
          uuid: null,
          id: r.key,
          data: { value: parse(r.value) },
          protectedReason: 'settings are never deleted (the setup catalogue seeds them)',
        }));
    },
    check: (data) => (isObject(data) && 'value' in data ? null : 'data must be {value}'),
    create: (tenantId, name, _uuid, data, t) => writeSetting(tenantId, name, data.value, t).then(() => name),
    update: (tenantId, _current, name, data, t) => writeSetting(tenantId, name, data.value, t).then(() => name),
    async remove() {
      throw new Error('settings are never deleted');
    },
    async invalidate(tenantId, names) {
      // SettingsService reads the table on every call; plugins that keep a setting in memory (maintenance
      // mode, session settings) follow SETTING_CHANGED, announced here after the commit.
      await optional(cradle(), 'settings')?.changed(tenantId, names);
    },
  };
}

/** The default dashboard layout (the DASHBOARD_DEFAULT_WIDGETS setting). */
function dashboardAdapter(kit: AdapterKit): ResourceAdapter {
  const { settingsAvailable, settingsRows, writeSetting, parse } = kit;
  return {
    type: 'dashboard',
    label: 'Dashboard widget layout (default widgets of a new dashboard)',
    readOnlyReason: null,
    available: settingsAvailable,
    async read(tenantId) {
      const row = (await settingsRows(tenantId)).find((r) => r.key === DASHBOARD_SETTING);
      if (!row) return [];
      return [
        {
          type: 'dashboard' as const,
          name: 'default-layout',
          uuid: null,
          id: 'default-layout',
          data: { widgets: parse(row.value) },
          protectedReason: 'the dashboard layout is never deleted',
        },
      ];
    },
    check: (data) =>
      isObject(data) && Array.isArray(data.widgets) && data.widgets.every((w) => typeof w === 'string')
        ? null
        : 'data must be {widgets: [widget id]}',
    async create(tenantId, name, _uuid, data, t) {
      if (name !== 'default-layout') throw new Error(`Unknown dashboard resource '${name}'`);
      await writeSetting(tenantId, DASHBOARD_SETTING, data.widgets, t);
      return name;
    },
    async update(tenantId, _current, name, data, t) {
      if (name !== 'default-layout') throw new Error(`Unknown dashboard resource '${name}'`);
      await writeSetting(tenantId, DASHBOARD_SETTING, data.widgets, t);
      return name;
    },
    async remove() {
      throw new Error('the dashboard layout is never deleted');
    },
    async invalidate() {},
  };
}

export function buildAdapters(cradle: () => Cradle): Record<ResourceType, ResourceAdapter> {
  const kit = adapterKit(cradle);
  return {
    locale: localeAdapter(() => optional(cradle(), 'locales')),
    component: componentAdapter(() => optional(cradle(), 'components')),
    collection: collectionAdapter(kit),
    role: roleAdapter({ cradle: kit.cradle, model: kit.model }),
    theme: themeAdapter(kit),
    setting: settingAdapter(kit),
    dashboard: dashboardAdapter(kit),
  };
}
