import { strict as assert } from 'node:assert';
import { CacheService } from '../../kernel/cache/cache-service.js';
import { ConflictError, ValidationError } from '../../kernel/errors.js';
import { ThemeNotFoundError } from '../../plugins/themes/errors.js';
import { THEME_MIGRATIONS } from '../../plugins/themes/migrations.js';
import { ThemeRecord } from '../../plugins/themes/models/theme-record.js';
import { loadBundledPresets } from '../../plugins/themes/presets.js';
import { BRANDING_KEY, CACHE_CATEGORY, ThemesService } from '../../plugins/themes/themes-service.js';
import { openUnitDb, type UnitDb } from '../helpers/unit-db.js';

/**
 * The themes service called directly on a real SQLite file with the plugin's model and migrations, the
 * real in-memory cache, the bundled presets and a small tenant resolver.
 */
describe('unit: themes service', () => {
  let db: UnitDb;
  let cache: CacheService;
  let themes: ThemesService;
  let tenantSeq = 0;
  const tenant = () => `t${++tenantSeq}`;
  const hosts = new Map<string, string>();

  before(async () => {
    db = await openUnitDb({ plugins: [{ id: 'themes', models: [ThemeRecord], migrations: THEME_MIGRATIONS }] });
    cache = await CacheService.create({ prefix: 'unit', defaultTtlSeconds: 60, logger: db.logger });
    const presets = loadBundledPresets();
    themes = new ThemesService(
      db.sequelize,
      () => cache,
      db.logger,
      () => ({ fromHostname: async (h) => hosts.get(h) ?? 'default' }),
      () => presets,
    );
  });
  after(async () => {
    await cache?.close();
    await db?.close();
  });

  it('the first theme of a tenant becomes active and default; later ones do not', async () => {
    const t = tenant();
    const first = (await themes.create(t, 'First')).theme;
    const second = (await themes.create(t, 'Second')).theme;
    assert.deepEqual([first.isActive, first.isDefault], [true, true]);
    assert.deepEqual([second.isActive, second.isDefault], [false, false]);
    assert.equal((await themes.current(t)).id, first.id);
  });

  it('names are unique per tenant without regard to case; another tenant may reuse one', async () => {
    const t = tenant();
    await themes.create(t, 'Ocean');
    await assert.rejects(themes.create(t, 'ocean'), ConflictError);
    await themes.create(tenant(), 'Ocean');
  });

  it('activating one theme deactivates the previous one (exactly one active)', async () => {
    const t = tenant();
    const a = (await themes.create(t, 'A')).theme;
    const b = (await themes.create(t, 'B')).theme;
    await themes.activate(t, b.id);
    const list = await themes.list(t);
    assert.deepEqual(
      list.filter((x) => x.isActive).map((x) => x.id),
      [b.id],
    );
    assert.equal(list.find((x) => x.id === a.id)?.isDefault, true, 'the default stays');
  });

  it('the active or default theme cannot be deleted; another can, and is gone', async () => {
    const t = tenant();
    const a = (await themes.create(t, 'A')).theme;
    const b = (await themes.create(t, 'B')).theme;
    const c = (await themes.create(t, 'C')).theme;
    await themes.activate(t, b.id);
    await assert.rejects(themes.delete(t, a.id), (err: unknown) => err instanceof ConflictError && /default/.test((err as Error).message));
    await assert.rejects(themes.delete(t, b.id), (err: unknown) => err instanceof ConflictError && /active/.test((err as Error).message));
    assert.deepEqual(await themes.delete(t, c.id), { deleted: true, id: c.id });
    await assert.rejects(themes.find(t, c.id), ThemeNotFoundError);
  });

  it('a theme of another tenant is not found', async () => {
    const a = (await themes.create(tenant(), 'Mine')).theme;
    await assert.rejects(themes.find(tenant(), a.id), ThemeNotFoundError);
    await assert.rejects(themes.activate(tenant(), a.id), ThemeNotFoundError);
  });

  it('custom CSS is sanitised and what was removed is reported', async () => {
    const t = tenant();
    const a = (await themes.create(t, 'A')).theme;
    const { theme, removed } = await themes.updateCss(
      t,
      a.id,
      '.x { color: red; } .y { background: url(javascript:alert(1)); } @import url(http://evil.example/x.css);',
    );
    assert.ok(removed.length >= 1, `removed: ${JSON.stringify(removed)}`);
    assert.match(theme.config.adminTheme.customCss, /color:\s*red/);
    assert.doesNotMatch(theme.config.adminTheme.customCss, /javascript:|@import/i);
  });

  it('importPreset() takes a bundled preset and gives a taken name a " (2)" suffix', async () => {
    const t = tenant();
    const forest = loadBundledPresets().find((p) => p.id === 'forest');
    assert.ok(forest, 'the bundled forest preset exists');
    const one = await themes.importPreset(t, forest.json);
    const two = await themes.importPreset(t, forest.json);
    assert.equal(two.theme.name, `${one.theme.name} (2)`);
    assert.equal(one.theme.presetSource, 'bundled:forest');
    const shorthand = await themes.importPreset(t, JSON.stringify({ name: 'Mint', primary: '#10b981' }));
    assert.equal(shorthand.theme.presetSource, 'shorthand');
    assert.equal(shorthand.theme.config.palette.primary['500']?.toLowerCase(), '#10b981', 'the seed colour sits at 500');
    await assert.rejects(
      themes.importPreset(t, '{not json'),
      (err: unknown) => err instanceof ValidationError && err.issues[0]?.path === 'body.presetJson',
    );
  });

  it('seedDefault() seeds the bundled default once, active and default', async () => {
    const t = tenant();
    const seeded = await themes.seedDefault(t);
    assert.equal(seeded?.name, 'Default');
    assert.equal(seeded?.isActive, true);
    assert.equal(await themes.seedDefault(t), null);
    assert.equal((await themes.list(t)).length, 1);
  });

  it('publicBranding() reads the active theme, caches it, and a write drops the cache', async () => {
    const t = tenant();
    hosts.set('shop.example.com', t);
    const a = (await themes.create(t, 'A')).theme;
    await themes.updateBranding(t, a.id, { siteName: 'Shop', logoUrl: null, accentColor: '#ABCDEF' });
    const branding = await themes.publicBranding({ hostname: 'Shop.Example.com' });
    assert.equal(branding.siteName, 'Shop');
    assert.equal(branding.accentColor?.toLowerCase(), '#abcdef');
    assert.deepEqual(await cache.get(CACHE_CATEGORY, BRANDING_KEY, { tenant: t }), branding, 'cached for the tenant');
    await themes.updateBranding(t, a.id, { siteName: 'Shop 2' });
    assert.equal(await cache.get(CACHE_CATEGORY, BRANDING_KEY, { tenant: t }), undefined, 'the write dropped the cache');
    assert.equal((await themes.publicBranding({ tenantId: t })).siteName, 'Shop 2');
  });

  it('publicBranding() answers nulls for the default tenant, an unknown host or a tenant without themes', async () => {
    const nulls = { siteName: null, logoUrl: null, accentColor: null };
    assert.deepEqual(await themes.publicBranding({ tenantId: 'default' }), nulls);
    assert.deepEqual(await themes.publicBranding({ hostname: 'unknown.example.org' }), nulls);
    assert.deepEqual(await themes.publicBranding({ tenantId: tenant() }), nulls);
    assert.deepEqual(await themes.publicBranding({ tenantId: '../etc' }), nulls);
  });

  it('saveAdminTheme() creates an active Default theme when there is none; reset restores the defaults', async () => {
    const t = tenant();
    assert.deepEqual(await themes.adminTheme(t), {});
    const saved = await themes.saveAdminTheme(t, { density: 'compact' });
    assert.equal(saved.adminTheme.density, 'compact');
    assert.equal((await themes.current(t)).name, 'Default');
    const reset = await themes.resetAdminTheme(t);
    assert.notEqual(reset.density, 'compact');
    await assert.rejects(themes.resetAdminTheme(tenant()), ThemeNotFoundError);
  });
});
