import { expect } from 'chai';
import { measureOf } from '../../plugins/content/field-rules.js';
import { componentNestingIssues, resolveFields, type ComponentDefs } from '../../plugins/content/component-resolution.js';
import { portableFields, resolvedComponents } from '../../plugins/content/component-values.js';
import { readEntryInput } from '../../plugins/content/entry-values.js';
import { fieldSchema, type FieldDefinition } from '../../plugins/content/field-types.js';
import { fromColumn, toColumn } from '../../plugins/content/field-values.js';

const field = (f: Record<string, unknown>) => f as unknown as FieldDefinition;

const DEFS: ComponentDefs = new Map([
  [
    'cta',
    {
      fields: [field({ name: 'url', type: 'url', required: true }), field({ name: 'label', type: 'text', default: 'More' })],
    },
  ],
  ['section', { fields: [field({ name: 'title', type: 'text' }), field({ name: 'cta', type: 'component', component: 'cta' })] }],
  ['hero', { fields: [field({ name: 'heading', type: 'text', required: true })] }],
]);
const FIELDS = [
  field({ name: 'sections', type: 'component', component: 'section', repeatable: true, max: 2 }),
  field({ name: 'body', type: 'blocks', components: ['hero', 'section'] }),
];

describe('content: component and blocks values (component-values.ts, component-resolution.ts)', function () {
  it('counts the items of repeatable components and blocks', function () {
    expect(measureOf({ type: 'component', repeatable: true })).to.equal('items');
    expect(measureOf({ type: 'component' })).to.equal(undefined);
    expect(measureOf({ type: 'blocks' })).to.equal('items');
  });

  it('checks the keys of component and blocks field definitions', function () {
    const paths = (f: unknown) => (fieldSchema.safeParse(f).error?.issues ?? []).map((i) => i.path.join('.'));
    expect(paths({ name: 'a', type: 'component', component: 'seo', repeatable: true, min: 1 })).to.deep.equal([]);
    expect(paths({ name: 'a', type: 'component' })).to.deep.equal(['component']);
    expect(paths({ name: 'a', type: 'component', component: 'seo', min: 1 })).to.deep.equal(['min']);
    expect(paths({ name: 'a', type: 'blocks' })).to.deep.equal(['components']);
    expect(paths({ name: 'a', type: 'blocks', components: ['x', 'x'] })).to.deep.equal(['components']);
    expect(paths({ name: 'a', type: 'text', component: 'seo', repeatable: true })).to.deep.equal(['component', 'repeatable']);
    expect(paths({ name: 'a', type: 'component', component: 'seo', default: {} })).to.deep.equal(['default']);
    expect(paths({ name: 'a', type: 'blocks', components: ['x'], unique: true })).to.deep.equal(['indexed']);
  });

  it('keeps the resolved definitions out of JSON and structured clones, and portableFields carries them across', function () {
    const resolved = resolveFields(FIELDS, DEFS);
    expect(JSON.parse(JSON.stringify(resolved))).to.deep.equal(FIELDS);
    expect(resolvedComponents(resolved[0]!)?.section?.map((f) => f.name)).to.deep.equal(['title', 'cta']);
    expect(resolvedComponents(structuredClone(resolved)[0]!)).to.equal(undefined);
    const carried = structuredClone(portableFields(resolved));
    const body = { sections: [{ cta: { url: 'ftp://x' } }] };
    expect(readEntryInput({ name: 'p', fields: carried }, body, 'create').issues.map((i) => i.path)).to.deep.equal([
      'body.sections.0.cta.url',
    ]);
  });

  it('reads values with defaults, required fields and full issue paths', function () {
    const c = { name: 'pages', fields: resolveFields(FIELDS, DEFS) };
    const ok = readEntryInput(
      c,
      { sections: [{ cta: { url: 'https://a.example' } }], body: [{ __component: 'hero', heading: 'h' }] },
      'create',
    );
    expect(ok.input?.values).to.deep.equal({
      sections: [{ cta: { url: 'https://a.example', label: 'More' } }],
      body: [{ __component: 'hero', heading: 'h' }],
    });
    const bad = readEntryInput(
      c,
      { sections: [{}, {}, {}], body: [{ __component: 'hero' }, { __component: 'nope' }, { __component: 'section', x: 1 }] },
      'create',
    );
    expect(bad.issues.map((i) => i.path)).to.have.members([
      'body.sections',
      'body.body.0.heading',
      'body.body.1.__component',
      'body.body.2.x',
    ]);
    // Without resolved definitions (not loaded) a value is refused, never written unchecked.
    expect(readEntryInput({ name: 'pages', fields: FIELDS }, { sections: [{}] }, 'create').issues).to.have.length(1);
  });

  it('stores values as JSON text', function () {
    const value = [{ __component: 'hero', heading: 'h' }];
    expect(fromColumn(FIELDS[1]!, toColumn(FIELDS[1]!, value))).to.deep.equal(value);
  });

  it('refuses unknown components, a fourth level and cycles, naming the field and the chain', function () {
    const defs: ComponentDefs = new Map([
      ['l1', { fields: [field({ name: 'a', type: 'text' })] }],
      ['l2', { fields: [field({ name: 'a', type: 'component', component: 'l1' })] }],
      ['l3', { fields: [field({ name: 'a', type: 'blocks', components: ['l2'] })] }],
    ]);
    expect(componentNestingIssues('l4', [field({ name: 'x', type: 'component', component: 'l2' })], defs)).to.deep.equal([]);
    expect(
      componentNestingIssues('l4', [field({ name: 'y', type: 'text' }), field({ name: 'x', type: 'component', component: 'l3' })], defs),
    ).to.deep.equal([{ path: 'body.fields.1.component', message: 'components nest at most 3 levels deep: l4 > l3 > l2 > l1' }]);
    expect(componentNestingIssues('l1', [field({ name: 'x', type: 'blocks', components: ['l2'] })], defs)[0]).to.deep.equal({
      path: 'body.fields.0.components',
      message: 'components may not use themselves: l1 > l2 > l1',
    });
    expect(componentNestingIssues('me', [field({ name: 'x', type: 'component', component: 'me' })], defs)[0]?.message).to.include(
      'me > me',
    );
    expect(componentNestingIssues('l5', [field({ name: 'x', type: 'component', component: 'zz' })], defs)).to.deep.equal([
      { path: 'body.fields.0.component', message: "'x' uses an unknown component 'zz'" },
    ]);
    // A deeper chain than three levels is not resolved: its values are refused.
    const deep: ComponentDefs = new Map([...defs, ['l4', { fields: [field({ name: 'a', type: 'component', component: 'l3' })] }]]);
    const top = resolveFields([field({ name: 't', type: 'component', component: 'l4' })], deep);
    const l4 = resolvedComponents(top[0]!)!.l4!;
    const l3 = resolvedComponents(l4[0]!)!.l3!;
    const l2 = resolvedComponents(l3[0]!)!.l2!;
    expect(resolvedComponents(l2[0]!)).to.deep.equal({});
  });
});
