import { expect } from 'chai';
import { PRIVATE_SETTINGS, PUBLIC_SETTINGS } from '../../plugins/setup/settings-catalogue.js';
import { SettingsRegistry, valueSchema, type SettingDeclaration } from '../../plugins/setup/settings-registry.js';

const declaration = (over: Partial<SettingDeclaration> = {}): SettingDeclaration => ({
  key: 'NOTES_PER_PAGE',
  type: 'integer',
  default: 20,
  min: 1,
  max: 100,
  group: 'plugins',
  label: 'Notes per page',
  description: 'How many notes a page lists',
  ...over,
});

describe('settings registry (the settings plugins declare)', function () {
  it('knows every seeded setting, and each seeded default fits its own declared type', function () {
    const registry = new SettingsRegistry();
    expect(registry.list()).to.have.length(PUBLIC_SETTINGS.length + PRIVATE_SETTINGS.length);
    for (const def of registry.list()) {
      const fits = valueSchema(def).safeParse(def.default);
      expect(fits.success, `${def.key}: ${JSON.stringify(def.default)}`).to.equal(true);
      expect(def.label, def.key).to.not.equal('');
    }
  });

  it('adds a declared setting with its owner and checks values against its bounds', function () {
    const registry = new SettingsRegistry();
    registry.declare('notes', declaration());
    expect(registry.get('NOTES_PER_PAGE')).to.include({ owner: 'notes', isPrivate: false, type: 'integer' });
    const schema = valueSchema(registry.get('NOTES_PER_PAGE')!);
    expect(schema.safeParse(50).success).to.equal(true);
    expect(schema.safeParse(0).success).to.equal(false);
    expect(schema.safeParse(101).success).to.equal(false);
    expect(schema.safeParse(2.5).success).to.equal(false);
    expect(schema.safeParse('50').success).to.equal(false);
  });

  it('refuses a bad declaration, naming the plugin and the key', function () {
    const registry = new SettingsRegistry();
    expect(() => registry.declare('notes', declaration({ key: 'lower_case' }))).to.throw(/lower_case.*notes.*upper-case/);
    expect(() => registry.declare('notes', declaration({ key: 'SITE_NAME' }))).to.throw(
      /SITE_NAME.*notes.*already declared by plugin 'setup'/,
    );
    expect(() => registry.declare('notes', declaration({ type: 'date' as never }))).to.throw(/unknown type 'date'/);
    expect(() => registry.declare('notes', declaration({ group: 'nowhere' as never }))).to.throw(/unknown group 'nowhere'/);
    expect(() => registry.declare('notes', declaration({ type: 'enum', default: 'a' }))).to.throw(/an enum needs options/);
    expect(() => registry.declare('notes', declaration({ default: 500 }))).to.throw(/default does not fit its own type/);
  });

  it('value schemas: text is trimmed, empty text of a nullable setting is null, lists check each item', function () {
    const registry = new SettingsRegistry();
    expect(valueSchema(registry.get('SITE_NAME')!).parse('  Acme  ')).to.equal('Acme');
    expect(valueSchema(registry.get('MEDIA_CLOUD_ENDPOINT')!).parse('  ')).to.equal(null);
    expect(valueSchema(registry.get('MEDIA_CLOUD_ENDPOINT')!).safeParse('ftp://x').success).to.equal(false);
    const types = valueSchema(registry.get('MEDIA_ALLOWED_TYPES')!);
    expect(types.parse([' image/png ', 'video/*'])).to.deep.equal(['image/png', 'video/*']);
    expect(types.safeParse(['image/png', 'nope']).success).to.equal(false);
    expect(types.safeParse(Array.from({ length: 101 }, () => 'image/png')).success).to.equal(false);
    expect(valueSchema(registry.get('ADMIN_EMAIL')!).safeParse('').success).to.equal(true);
    expect(valueSchema(registry.get('ADMIN_EMAIL')!).safeParse('nobody').success).to.equal(false);
  });
});
