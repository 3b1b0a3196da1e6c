import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Sequelize } from 'sequelize';
import { ModelRegistry, type PluginModel } from '../../kernel/db/models.js';
import { DIST_ROOT, PROJECT_ROOT } from '../../kernel/version.js';

// Issue 34 rewrites the plugin models onto the kernel's column presets (column.id(), tableOf(...)); what
// Sequelize makes of each model must stay exactly what it was, since the migrations (never edited) created the
// tables for those attributes. The fixture was taken from the models before that rewrite; when a later change
// means to alter a model, regenerate it in the same commit and say why:
//   CMS_WRITE_MODEL_SNAPSHOT=1 npx mocha --no-config --require ./scripts/mocha-tiers.cjs dist/test/unit/model-attributes-unchanged.test.js
const SNAPSHOT = join(PROJECT_ROOT, 'test', 'fixtures', 'models', 'plugin-model-attributes.json');
const DIALECTS = ['sqlite', 'mariadb'] as const;

/** Every plugin model class, by `<plugin>/models/<file>:<class>`, from the compiled tree. */
async function pluginModels(): Promise<Map<string, PluginModel>> {
  const found = new Map<string, PluginModel>();
  const plugins = join(DIST_ROOT, 'plugins');
  for (const plugin of readdirSync(plugins).sort()) {
    const dir = join(plugins, plugin, 'models');
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir)
      .filter((name) => name.endsWith('.js'))
      .sort()) {
      const module = (await import(pathToFileURL(join(dir, file)).href)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(module)) {
        if (typeof value === 'function' && typeof (value as Partial<PluginModel>).initModel === 'function')
          found.set(`${plugin}/models/${file.replace(/\.js$/, '')}:${name}`, value as PluginModel);
      }
    }
  }
  return found;
}

/** A JSON-safe copy: the model class and the Sequelize instance are left out, a data type becomes its SQL and options. */
function plain(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return typeof value === 'function' ? undefined : value;
  if (Array.isArray(value)) return value.map(plain);
  const type = value as { key?: unknown; toSql?: () => string };
  const out: Record<string, unknown> = {};
  if (typeof type.key === 'string' && typeof type.toSql === 'function') {
    out.dataType = type.key;
    out.sql = type.toSql();
  }
  for (const key of Object.keys(value).sort()) {
    if (key === 'Model' || key === 'sequelize') continue;
    const copy = plain((value as Record<string, unknown>)[key]);
    if (copy !== undefined) out[key] = copy;
  }
  return out;
}

/** What Sequelize holds for each model bound to a Sequelize of `dialect` (no connection is opened). */
async function describeModels(dialect: (typeof DIALECTS)[number]): Promise<Record<string, unknown>> {
  const sequelize =
    dialect === 'sqlite'
      ? new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false })
      : new Sequelize({ dialect: 'mariadb', host: '127.0.0.1', database: 'snapshot', username: 'snapshot', logging: false });
  const registry = new ModelRegistry(sequelize);
  const out: Record<string, unknown> = {};
  for (const [id, model] of await pluginModels()) {
    const bound = registry.add(model, id);
    out[id] = plain({
      attributes: bound.getAttributes(),
      attributeOrder: Object.keys(bound.getAttributes()),
      options: bound.options,
      primaryKeys: bound.primaryKeyAttributes,
      tableName: bound.getTableName(),
    });
  }
  await sequelize.close();
  return out;
}

describe('the plugin models keep the attributes and options they had before the column presets', function () {
  let now: Record<string, Record<string, unknown>>;
  before(async function () {
    now = {};
    for (const dialect of DIALECTS) now[dialect] = await describeModels(dialect);
    if (process.env.CMS_WRITE_MODEL_SNAPSHOT === '1') writeFileSync(SNAPSHOT, `${JSON.stringify(now, null, 2)}\n`);
  });

  for (const dialect of DIALECTS) {
    it(`every plugin model bound to ${dialect} equals test/fixtures/models/plugin-model-attributes.json`, function () {
      const before = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as Record<string, Record<string, unknown>>;
      expect(Object.keys(now[dialect]), 'the models').to.deep.equal(Object.keys(before[dialect]));
      for (const id of Object.keys(before[dialect])) expect(now[dialect][id], id).to.deep.equal(before[dialect][id]);
    });
  }
});
