import { expect } from 'chai';
import { as, dataOf, errorOf } from '../helpers/content.js';
import { fixturePlugin, responseCookie, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS, REDIS_URL } from '../helpers/services.js';

const PASSWORD = 'correct horse battery';
const SHADES = ['50', '100', '200', '300', '400', '500', '600', '700', '800', '900', '950'];
const SUMMARY_KEYS = ['id', 'name', 'isActive', 'isDefault', 'density', 'variant', 'updatedAt'];
const ADMIN_THEME_KEYS = [
  'density',
  'variant',
  'features',
  'customCss',
  'layoutState',
  'lockedSettings',
  'reducedMotion',
  'highContrast',
  'presetSource',
  'updatedAt',
];
const UUID = '00000000-0000-4000-8000-000000000000';

const GETS = ['/api/theme/admin-theme', '/api/theme/list', '/api/theme/get-current-theme', '/api/theme/presets'];
const POSTS: Array<[string, unknown]> = [
  ['/api/theme/admin-theme', { density: 'compact' }],
  ['/api/theme/create', { name: 'Nope' }],
  ['/api/theme/activate', { themeId: UUID }],
  ['/api/theme/clone', { sourceId: UUID, name: 'Nope' }],
  ['/api/theme/delete', { themeId: UUID }],
  ['/api/theme/set-default', { themeId: UUID }],
  ['/api/theme/import-preset', { presetJson: '{"primary":"#0ea5e9"}' }],
  ['/api/theme/update-theme', { themeId: UUID, customCss: '' }],
];

for (const variant of DB_VARIANTS) {
  const cache = variant.name === 'mariadb' && REDIS_URL ? 'redis' : 'memory';
  describe(`themes (${variant.name}, cache ${cache})`, function () {
    this.timeout(120000);
    const admin = () => as(t, 'admin');
    const adminOf = (tenant: string) => as(t, 'admin', tenant);

    const t = useTestKernel(
      {
        db: variant.name,
        cache,
        plugins: [fixturePlugin('test-identity')],
        config: { multiTenant: true, plugins: { options: { auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' } } } },
      },
      { variant },
    );

    it('guards every endpoint: 401 without identity, system:read for GET, system:settings for POST and DELETE', async function () {
      for (const path of GETS) {
        expect(await errorOf(await t.request(path), 401), path).to.equal('AUTHENTICATION_REQUIRED');
        expect(await errorOf(await as(t, 'viewer').get(path), 403), `${path} viewer`).to.equal('FORBIDDEN');
        expect([200, 404], `${path} editor`).to.include((await as(t, 'editor').get(path)).status);
      }
      for (const [path, body] of POSTS) {
        const guest = await t.request(path, { method: 'POST', json: body });
        expect(await errorOf(guest, 401), path).to.equal('AUTHENTICATION_REQUIRED');
        // The editor has system:read but not system:settings.
        expect(await errorOf(await as(t, 'editor').post(path, body), 403), `${path} editor`).to.equal('FORBIDDEN');
      }
      const del = await t.request('/api/theme/admin-theme', { method: 'DELETE', identity: 'editor' });
      expect(await errorOf(del, 403)).to.equal('FORBIDDEN');
      expect(await errorOf(await t.request('/api/theme/effective'), 401)).to.equal('AUTHENTICATION_REQUIRED');
      expect((await t.request('/api/theme/public')).status).to.equal(200);
    });

    it('a tenant without themes: get-current-theme 404, admin-theme {}, reset 404, empty list', async function () {
      const a = adminOf('empty');
      expect(await errorOf(await a.get('/api/theme/get-current-theme'), 404)).to.equal('THEME_NOT_FOUND');
      expect(await dataOf(await a.get('/api/theme/admin-theme'))).to.deep.equal({});
      expect(
        await errorOf(
          await t.request('/api/theme/admin-theme', { method: 'DELETE', identity: 'admin', headers: { 'x-test-tenant': 'empty' } }),
          404,
        ),
      ).to.equal('THEME_NOT_FOUND');
      expect(await dataOf(await a.get('/api/theme/list'))).to.deep.equal([]);
      // Reading never creates a theme.
      expect(await errorOf(await a.get('/api/theme/get-current-theme'), 404)).to.equal('THEME_NOT_FOUND');
    });

    it('create answers 201; the first theme is active and default; list has the ThemeSummary shape; names are unique', async function () {
      const a = adminOf('lifecycle');
      const first = await dataOf(
        await a.post('/api/theme/create', {
          name: 'Corporate',
          settings: { adminTheme: { density: 'compact', variant: 'flat' }, palette: { primary: '#7c3aed' } },
        }),
        201,
      );
      expect(first).to.include({
        name: 'Corporate',
        isActive: true,
        isDefault: true,
        density: 'compact',
        variant: 'flat',
        presetSource: null,
      });
      expect(first.config.palette.primary).to.have.all.keys(...SHADES);
      expect(first.config.palette.primary['500']).to.equal('#7c3aed');
      expect(first.config.adminTheme).to.have.all.keys(...ADMIN_THEME_KEYS);
      const second = await dataOf(await a.post('/api/theme/create', { name: 'Second' }), 201);
      expect(second).to.include({ isActive: false, isDefault: false, density: 'cozy', variant: 'bordered' });
      const list = await dataOf(await a.get('/api/theme/list'));
      expect(list).to.have.length(2);
      for (const s of list) expect(s).to.have.all.keys(...SUMMARY_KEYS);
      expect(list.map((s: any) => s.name)).to.deep.equal(['Corporate', 'Second']);
      expect(await errorOf(await a.post('/api/theme/create', { name: 'corporate' }), 409)).to.equal('CONFLICT');
      const current = await dataOf(await a.get('/api/theme/get-current-theme'));
      expect(current.id).to.equal(first.id);
      // Another tenant sees none of them.
      expect(await dataOf(await adminOf('elsewhere').get('/api/theme/list'))).to.deep.equal([]);
    });

    it('validates density, variant, feature and lock keys and the request shapes (400 VALIDATION_ERROR)', async function () {
      const a = adminOf('validation');
      const bad: unknown[] = [
        { density: 'wide' },
        { variant: 'glass' },
        { features: { darkMode: true } },
        { features: { stickyActionBar: 'yes' } },
        { lockedSettings: { colors: true } },
        { layoutState: { sidebar: 'open' } },
        { unknown: 1 },
        { customCss: 42 },
      ];
      for (const body of bad) {
        const res = await a.post('/api/theme/admin-theme', body);
        expect(await errorOf(res, 400), JSON.stringify(body)).to.equal('VALIDATION_ERROR');
      }
      expect(await errorOf(await a.post('/api/theme/create', {}), 400)).to.equal('VALIDATION_ERROR');
      expect(await errorOf(await a.post('/api/theme/create', { name: 'X', settings: { adminTheme: { density: 'huge' } } }), 400)).to.equal(
        'VALIDATION_ERROR',
      );
      expect(await errorOf(await a.post('/api/theme/create', { name: 'X', settings: { palette: { primary: 'blue' } } }), 400)).to.equal(
        'VALIDATION_ERROR',
      );
      expect(await errorOf(await a.post('/api/theme/activate', { themeId: 'not-a-uuid' }), 400)).to.equal('VALIDATION_ERROR');
      expect(await errorOf(await a.post('/api/theme/activate', { themeId: UUID }), 404)).to.equal('THEME_NOT_FOUND');
      // Nothing was created by the refused requests.
      expect(await dataOf(await a.get('/api/theme/list'))).to.deep.equal([]);
    });

    it('admin-theme: save merges a partial config, sanitises customCss and says what it removed; updatedAt moves; DELETE resets', async function () {
      const a = adminOf('admintheme');
      const created = await dataOf(await a.post('/api/theme/admin-theme', { density: 'spacious' }));
      expect(created).to.include({ density: 'spacious', variant: 'bordered' });
      expect(created.removed).to.deep.equal([]);
      const theme = await dataOf(await a.get('/api/theme/get-current-theme'));
      expect(theme).to.include({ name: 'Default', isActive: true });
      const saved = await dataOf(
        await a.post('/api/theme/admin-theme', {
          variant: 'elevated',
          features: { brandedLogin: true },
          layoutState: { sidebar: false, footer: true },
          customCss: '@import url(evil.css); .brand{color:#0ea5e9} .x{background:url(javascript:alert(1))}',
        }),
      );
      expect(saved).to.include({ density: 'spacious', variant: 'elevated' });
      expect(saved.features).to.include({ brandedLogin: true, stickyActionBar: true });
      expect(saved.layoutState).to.deep.equal({ sidebar: false, footer: true });
      expect(saved.customCss).to.contain('.brand{color:#0ea5e9}').and.not.contain('url(').and.not.contain('@import');
      expect(saved.removed).to.include.members(['@import', 'url()']);
      expect(Date.parse(saved.updatedAt)).to.be.greaterThan(Date.parse(created.updatedAt));
      const read = await dataOf(await a.get('/api/theme/admin-theme'));
      expect(read).to.have.all.keys(...ADMIN_THEME_KEYS);
      expect(read.customCss).to.equal(saved.customCss);
      const reset = await dataOf(
        await t.request('/api/theme/admin-theme', { method: 'DELETE', identity: 'admin', headers: { 'x-test-tenant': 'admintheme' } }),
      );
      expect(reset).to.include({ density: 'cozy', variant: 'bordered', customCss: '' });
      expect(reset.layoutState).to.deep.equal({});
      expect((await dataOf(await a.get('/api/theme/get-current-theme'))).id).to.equal(theme.id);
    });

    it('clone (201), activate, set-default; the active and the default theme cannot be deleted (409 CONFLICT)', async function () {
      const a = adminOf('flows');
      const base = await dataOf(
        await a.post('/api/theme/create', { name: 'Base', settings: { adminTheme: { density: 'compact', customCss: '.a{color:red}' } } }),
        201,
      );
      const copy = await dataOf(await a.post('/api/theme/clone', { sourceId: base.id, name: 'Copy' }), 201);
      expect(copy).to.include({ name: 'Copy', isActive: false, isDefault: false, density: 'compact' });
      expect(copy.id).to.not.equal(base.id);
      expect(copy.config.adminTheme.customCss).to.equal('.a{color:red}');
      expect(await errorOf(await a.post('/api/theme/clone', { sourceId: base.id, name: 'Copy' }), 409)).to.equal('CONFLICT');
      expect(await errorOf(await a.post('/api/theme/clone', { sourceId: UUID, name: 'Other' }), 404)).to.equal('THEME_NOT_FOUND');

      const activated = await dataOf(await a.post('/api/theme/activate', { themeId: copy.id }));
      expect(activated).to.include({ id: copy.id, isActive: true });
      let list = await dataOf(await a.get('/api/theme/list'));
      expect(list.filter((s: any) => s.isActive).map((s: any) => s.id)).to.deep.equal([copy.id]);
      expect((await dataOf(await a.get('/api/theme/get-current-theme'))).id).to.equal(copy.id);

      // base is still the default, copy is active: neither can go.
      expect(await errorOf(await a.post('/api/theme/delete', { themeId: copy.id }), 409)).to.equal('CONFLICT');
      expect(await errorOf(await a.post('/api/theme/delete', { themeId: base.id }), 409)).to.equal('CONFLICT');
      const third = await dataOf(await a.post('/api/theme/create', { name: 'Third' }), 201);
      const def = await dataOf(await a.post('/api/theme/set-default', { themeId: third.id }));
      expect(def).to.include({ isDefault: true, isActive: false });
      list = await dataOf(await a.get('/api/theme/list'));
      expect(list.filter((s: any) => s.isDefault).map((s: any) => s.id)).to.deep.equal([third.id]);
      expect(await dataOf(await a.post('/api/theme/delete', { themeId: base.id }))).to.deep.equal({ deleted: true, id: base.id });
      expect(await errorOf(await a.post('/api/theme/delete', { themeId: base.id }), 404)).to.equal('THEME_NOT_FOUND');
      expect((await dataOf(await a.get('/api/theme/list'))).map((s: any) => s.name)).to.deep.equal(['Copy', 'Third']);
    });

    it('update-theme changes customCss only, sanitised, and lists what it removed', async function () {
      const a = adminOf('css');
      const theme = await dataOf(
        await a.post('/api/theme/create', {
          name: 'Css',
          settings: { adminTheme: { density: 'spacious' }, palette: { primary: '#be123c' } },
        }),
        201,
      );
      const updated = await dataOf(
        await a.post('/api/theme/update-theme', {
          themeId: theme.id,
          customCss: '.ok{margin:0} .bad{width:expression(alert(1));behavior:url(x.htc)}</style><script>alert(1)</script>',
        }),
      );
      expect(updated.config.adminTheme.customCss).to.equal('.ok{margin:0}.bad{}');
      expect(updated.removed).to.include.members(['expression()', 'behavior:', '<script>']);
      expect(updated.density).to.equal('spacious');
      expect(updated.config.palette).to.deep.equal(theme.config.palette);
      expect(Date.parse(updated.updatedAt)).to.be.greaterThan(Date.parse(theme.updatedAt));
      // Only customCss: other keys in the body change nothing.
      const again = await dataOf(
        await a.post('/api/theme/update-theme', { themeId: theme.id, customCss: '.b{color:blue}', density: 'compact' }),
      );
      expect(again.density).to.equal('spacious');
      expect(again.config.adminTheme.customCss).to.equal('.b{color:blue}');
      expect(again.removed).to.deep.equal([]);
      expect(await errorOf(await a.post('/api/theme/update-theme', { themeId: UUID, customCss: '' }), 404)).to.equal('THEME_NOT_FOUND');
    });

    it('imports every bundled preset with zero warnings, records presetSource, and answers {success, data, warnings}', async function () {
      const a = adminOf('presets');
      const presets = await dataOf(await a.get('/api/theme/presets'));
      expect(presets.map((p: any) => p.id)).to.include.members(['default', 'ocean', 'forest', 'high-contrast', 'midnight']);
      for (const preset of presets) {
        const res = await a.post('/api/theme/import-preset', { presetJson: preset.presetJson });
        const body = await res.json();
        expect(res.status, JSON.stringify(body)).to.equal(200);
        expect(body).to.have.all.keys('success', 'data', 'warnings');
        expect(body.success).to.equal(true);
        expect(body.warnings, `${preset.id}: ${JSON.stringify(body.warnings)}`).to.deep.equal([]);
        expect(body.data.name).to.equal(preset.name);
        expect(body.data.presetSource).to.be.a('string').and.not.equal('');
        for (const family of ['primary', 'secondary', 'tertiary', 'success', 'warning', 'error', 'neutral']) {
          expect(body.data.config.palette[family], `${preset.id} ${family}`).to.have.all.keys(...SHADES);
        }
      }
      const ocean = (await dataOf(await a.get('/api/theme/list'))).find((s: any) => s.name === 'Ocean');
      expect(ocean).to.be.an('object');
    });

    it('a shorthand palette expands its seeds to 50..950; low contrast comes back as warnings and still imports', async function () {
      const a = adminOf('shorthand');
      const res = await a.post('/api/theme/import-preset', {
        presetJson: JSON.stringify({ name: 'Sunny', primary: '#fde047', surface: '#9ca3af' }),
      });
      const body = await res.json();
      expect(res.status).to.equal(200);
      expect(body.success).to.equal(true);
      expect(body.data).to.include({ name: 'Sunny', presetSource: 'shorthand' });
      expect(body.data.config.palette.primary).to.have.all.keys(...SHADES);
      expect(body.data.config.colors.surface).to.equal('#9ca3af');
      expect(body.warnings.length).to.be.greaterThan(0);
      for (const w of body.warnings) {
        expect(w).to.include({ code: 'LOW_CONTRAST', required: 4.5 });
        expect(w.ratio).to.be.below(4.5);
      }
      expect(body.warnings.map((w: any) => w.pair)).to.include('primary-700/surface');
      // The same name again is imported under a free name.
      const again = await (
        await a.post('/api/theme/import-preset', { presetJson: JSON.stringify({ name: 'Sunny', primary: '#0ea5e9' }) })
      ).json();
      expect(again.data.name).to.equal('Sunny (2)');
      expect(again.warnings).to.deep.equal([]);
      // A full theme JSON with unsafe CSS: imported, with the removal as a warning.
      const full = await (
        await a.post('/api/theme/import-preset', {
          presetJson: JSON.stringify({
            name: 'Full',
            palette: { primary: '#0369a1' },
            adminTheme: { customCss: '@import "x.css"; .a{color:red}' },
            branding: { siteName: 'Full site' },
          }),
        })
      ).json();
      expect(full.success).to.equal(true);
      expect(full.data.presetSource).to.equal('theme-json');
      expect(full.data.config.adminTheme.customCss).to.equal('.a{color:red}');
      expect(full.warnings).to.deep.include({ code: 'CSS_REMOVED', removed: ['@import'], message: 'Removed from customCss: @import' });
      for (const presetJson of [
        'not json',
        '[1,2]',
        JSON.stringify({ primary: 'red' }),
        JSON.stringify({ primary: '#fff', accent: '#000' }),
        JSON.stringify({ palette: {} }),
      ]) {
        expect(await errorOf(await a.post('/api/theme/import-preset', { presetJson }), 400), presetJson).to.equal('VALIDATION_ERROR');
      }
    });

    it('public branding: always 200; nulls for no tenant, default, unknown or garbage; by tenantId or hostname; cached and invalidated on change', async function () {
      const nulls = { siteName: null, logoUrl: null, accentColor: null };
      const pub = async (query: string) => dataOf(await t.request(`/api/theme/public${query}`));
      expect(await pub('')).to.deep.equal(nulls);
      expect(await pub('?tenantId=default')).to.deep.equal(nulls);
      expect(await pub('?tenantId=nobody-here')).to.deep.equal(nulls);
      expect(await pub('?hostname=unknown.example')).to.deep.equal(nulls);
      expect(await pub('?tenantId=../../etc&hostname[]=x')).to.deep.equal(nulls);
      expect(await pub('?tenantId[]=a&tenantId[]=b')).to.deep.equal(nulls);
      // Even when the default tenant has a theme with branding.
      await admin().post('/api/theme/create', { name: 'Main', settings: { branding: { siteName: 'Main site' } } });
      expect(await pub('?tenantId=default')).to.deep.equal(nulls);

      const tenant = await t.request('/api/tenants', {
        method: 'POST',
        identity: 'admin',
        json: { id: 'acme', name: 'Acme', hostnames: ['acme.example'], admin: { email: 'boss@acme.example', password: PASSWORD } },
      });
      expect(tenant.status).to.equal(201);
      const acme = adminOf('acme');
      const first = await (
        await acme.post('/api/theme/import-preset', {
          presetJson: JSON.stringify({
            name: 'Acme',
            palette: { primary: '#0369a1' },
            branding: { siteName: 'Acme Inc', logoUrl: 'https://acme.example/logo.svg', accentColor: '#f97316' },
          }),
        })
      ).json();
      expect(await pub('?tenantId=acme')).to.deep.equal({
        siteName: 'Acme Inc',
        logoUrl: 'https://acme.example/logo.svg',
        accentColor: '#f97316',
      });
      expect(await pub('?hostname=ACME.example')).to.deep.equal({
        siteName: 'Acme Inc',
        logoUrl: 'https://acme.example/logo.svg',
        accentColor: '#f97316',
      });
      // tenantId wins over hostname.
      expect(await pub('?hostname=acme.example&tenantId=default')).to.deep.equal(nulls);

      // Cached: a change behind the API's back is not seen...
      const db = t.kernel.container.resolve<any>('sequelize');
      const config = JSON.parse(
        (await db.query('SELECT config FROM themes WHERE id = ?', { replacements: [first.data.id], type: 'SELECT' }))[0].config,
      );
      config.branding.siteName = 'Changed behind the API';
      await db.query('UPDATE themes SET config = ? WHERE id = ?', { replacements: [JSON.stringify(config), first.data.id] });
      expect((await pub('?tenantId=acme')).siteName).to.equal('Acme Inc');
      // ...while any theme change through the API drops the cached branding at once.
      const second = await (
        await acme.post('/api/theme/import-preset', {
          presetJson: JSON.stringify({ name: 'Acme 2', palette: { primary: '#15803d' }, branding: { siteName: 'Acme Two' } }),
        })
      ).json();
      expect((await pub('?tenantId=acme')).siteName).to.equal('Changed behind the API');
      await acme.post('/api/theme/activate', { themeId: second.data.id });
      // No accentColor in the branding: the primary 500 stands in.
      expect(await pub('?tenantId=acme')).to.deep.equal({
        siteName: 'Acme Two',
        logoUrl: null,
        accentColor: second.data.config.palette.primary['500'],
      });
      // Branding edited on the theme itself: the public answer follows at once; null clears a field; bad values 400.
      const edited = await acme.post('/api/theme/update-branding', {
        themeId: second.data.id,
        logoUrl: '/files/acme/logo.png',
        accentColor: '#ABC',
      });
      expect(edited.status).to.equal(200);
      expect(await pub('?tenantId=acme')).to.deep.equal({ siteName: 'Acme Two', logoUrl: '/files/acme/logo.png', accentColor: '#aabbcc' });
      await acme.post('/api/theme/update-branding', { themeId: second.data.id, siteName: null });
      expect((await pub('?tenantId=acme')).siteName).to.equal(null);
      expect(
        await errorOf(await acme.post('/api/theme/update-branding', { themeId: second.data.id, logoUrl: 'javascript:alert(1)' }), 400),
      ).to.equal('VALIDATION_ERROR');
      expect(
        await errorOf(
          await acme.post('/api/theme/update-branding', {
            themeId:
              first.data.id.replace(/.$/, '0') === first.data.id ? first.data.id.replace(/.$/, '1') : first.data.id.replace(/.$/, '0'),
            siteName: 'x',
          }),
          404,
        ),
      ).to.equal('THEME_NOT_FOUND');
    });

    it('per-user preferences: validated, locked settings refused (409) and ignored on read; the effective theme as CSS variables', async function () {
      const users = t.kernel.container.resolve<{ create(i: object): Promise<{ _id: string }> }>('users');
      await users.create({ email: 'prefs@example.com', password: PASSWORD, role: 'viewer' });
      const login = await t.request('/api/user/login', { method: 'POST', json: { email: 'prefs@example.com', password: PASSWORD } });
      const cookie = responseCookie(login)!;
      expect(cookie).to.be.a('string');
      const put = (theme: unknown) =>
        t.request('/api/user/update-user-attributes', { method: 'PUT', headers: { cookie }, json: { preferences: { theme } } });
      const effective = async () => dataOf(await t.request('/api/theme/effective', { headers: { cookie } }));

      // The default tenant's active theme is 'Main' (created in the branding test, or here).
      if (!(await admin().get('/api/theme/get-current-theme')).ok) await admin().post('/api/theme/create', { name: 'Main' });
      await admin().post('/api/theme/admin-theme', {
        density: 'cozy',
        variant: 'bordered',
        lockedSettings: { density: false, variant: false },
        layoutState: { sidebar: true, footer: true },
      });

      const saved = await put({
        density: 'compact',
        cardStyle: 'elevated',
        reducedMotion: true,
        highContrast: false,
        layoutRegions: { footer: false },
      });
      expect(saved.status, await saved.clone().text()).to.equal(200);
      expect((await saved.json()).data.preferences.theme).to.include({ density: 'compact', cardStyle: 'elevated' });
      let eff = await effective();
      expect(eff.settings).to.include({ density: 'compact', variant: 'elevated', reducedMotion: true, highContrast: false });
      expect(eff.settings.layoutState).to.deep.equal({ sidebar: true, footer: false });
      expect(eff.cssVariables).to.include({ '--density-scale': '0.85', '--motion-duration': '0ms' });
      expect(eff.cssVariables['--color-primary-500']).to.match(/^#[0-9a-f]{6}$/);
      for (const shade of SHADES) expect(eff.cssVariables).to.have.property(`--color-neutral-${shade}`);
      expect(eff.locked).to.deep.equal([]);

      for (const bad of [
        { density: 'tiny' },
        { cardStyle: 'glass' },
        { reducedMotion: 'yes' },
        { layoutRegions: { footer: 'no' } },
        { colour: 'red' },
        'compact',
      ]) {
        expect(await errorOf(await put(bad), 400), JSON.stringify(bad)).to.equal('VALIDATION_ERROR');
      }

      // The admin locks density and the layout: a user override is refused; null (follow the theme) is fine.
      await admin().post('/api/theme/admin-theme', { density: 'spacious', lockedSettings: { density: true, layoutState: true } });
      const refused = await put({ density: 'compact' });
      const body = await refused.json();
      expect(refused.status).to.equal(409);
      expect(body).to.include({ success: false, error: 'THEME_SETTING_LOCKED', setting: 'density' });
      expect(await errorOf(await put({ layoutRegions: { sidebar: false } }), 409)).to.equal('THEME_SETTING_LOCKED');
      expect((await put({ cardStyle: 'flat' })).status).to.equal(200);
      // The stale stored density ('compact') and layoutRegions are ignored while locked.
      eff = await effective();
      expect(eff.preferences).to.include({ density: 'compact', cardStyle: 'flat' });
      expect(eff.settings).to.include({ density: 'spacious', variant: 'flat' });
      expect(eff.settings.layoutState).to.deep.equal({ sidebar: true, footer: true });
      expect(eff.cssVariables['--density-scale']).to.equal('1.2');
      expect(eff.locked).to.have.members(['density', 'layoutState']);
      expect((await put({ density: null })).status).to.equal(200);
      // Other preferences still save without the themes plugin's say.
      expect(
        (
          await t.request('/api/user/update-user-attributes', {
            method: 'PUT',
            headers: { cookie },
            json: { preferences: { dashboard: { widgets: [] } } },
          })
        ).status,
      ).to.equal(200);
    });
  });
}

describe('themes: setup seeding writes the default theme', function () {
  this.timeout(120000);
  const t = useTestKernel({
    setup: true,
    plugins: [fixturePlugin('test-identity')],
    config: { plugins: { options: { auth: { bcryptRounds: 4 }, setup: { admin: { email: 'seed@example.com', password: PASSWORD } } } } },
  });

  it('after headless setup the default tenant has the bundled Default theme, active and default', async function () {
    const current = await dataOf(await t.request('/api/theme/get-current-theme', { identity: 'admin' }));
    expect(current).to.include({ name: 'Default', isActive: true, isDefault: true, presetSource: 'bundled:default' });
    expect(current.config.colors.background).to.equal('#f8fafc');
    const list = await dataOf(await t.request('/api/theme/list', { identity: 'admin' }));
    expect(list).to.have.length(1);
    // The admin UI names the site after the SITE_NAME setting while the theme's branding has no name.
    const settings = t.kernel.container.resolve<{ set(key: string, value: unknown): Promise<unknown> }>('settings');
    await settings.set('SITE_NAME', 'Harbour News');
    expect((await dataOf(await t.request('/api/theme/effective', { identity: 'admin' }))).branding).to.include({
      siteName: 'Harbour News',
    });
    await t.request('/api/theme/update-branding', {
      method: 'POST',
      identity: 'admin',
      json: { themeId: current.id, siteName: 'Harbour' },
    });
    expect((await dataOf(await t.request('/api/theme/effective', { identity: 'admin' }))).branding).to.include({ siteName: 'Harbour' });
  });
});
