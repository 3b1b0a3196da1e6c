import { expect } from 'chai';
import type { LoadedCollection } from '../../plugins/content/collections-service.js';
import { definitionChecksum, load, migrationRisk, type MigrationDefinition } from '../../plugins/data-migrations/definition.js';
import { runMigration, type State } from '../../plugins/data-migrations/simulate.js';

/** The step semantics of the data-migrations plugin on an in-memory state (no database). */
function state(
  rows: Record<string, Array<Record<string, unknown>>>,
  fields: Record<string, Array<{ name: string; type: string; options?: string[] }>>,
): State {
  const s: State = { tenantId: 'default', collections: new Map(), rows: new Map() };
  for (const [name, list] of Object.entries(fields)) {
    s.collections.set(name, { name, fields: list, version: 1, uid: name, table: `cms_c_${name}` } as unknown as LoadedCollection);
    s.rows.set(
      name,
      new Map(
        (rows[name] ?? []).map((r, i) => {
          const id = String(r.id ?? `${name}-${i}`);
          const values: Record<string, unknown> = {};
          for (const f of list) values[f.name] = r[f.name] ?? null;
          return [id, { id, system: { slug: r.slug ?? id, status: r.status ?? 'draft', version: 1 }, values }];
        }),
      ),
    );
  }
  return s;
}

const def = (steps: unknown[], extra: Record<string, unknown> = {}): MigrationDefinition => {
  const loaded = load({ id: '2026-11-25-test', collection: 'posts', steps, ...extra }, 'test');
  if (!loaded.ok) throw new Error(loaded.message);
  return loaded.migration.definition;
};

const POSTS = [
  { name: 'title', type: 'text' },
  { name: 'headline', type: 'text' },
  { name: 'n', type: 'number' },
  { name: 's', type: 'text' },
  { name: 'cat', type: 'select', options: ['a', 'b'] },
];

describe('data migrations: definitions and steps', function () {
  it('validates definitions: id pattern, known ops, a collection for every step, backfill value xor fromField', function () {
    expect(load({ id: 'Bad Id', collection: 'p', steps: [{ op: 'trim', field: 'x' }] }, 't').ok).to.equal(false);
    expect(load({ id: 'ok', collection: 'p', steps: [{ op: 'explode', field: 'x' }] }, 't').ok).to.equal(false);
    expect(load({ id: 'ok', steps: [{ op: 'trim', field: 'x' }] }, 't').ok).to.equal(false);
    expect(load({ id: 'ok', collection: 'p', steps: [{ op: 'backfill', field: 'x' }] }, 't').ok).to.equal(false);
    expect(load({ id: 'ok', collection: 'p', steps: [] }, 't').ok).to.equal(false);
    expect(load({ id: 'ok', collection: 'p', steps: [{ op: 'trim', field: 'x', extra: 1 }] }, 't').ok).to.equal(false);
    expect(load({ id: 'ok', collection: 'p', steps: [{ op: 'backfill', field: 'x', value: 1 }] }, 't').ok).to.equal(true);
  });

  it('scores risk from the steps and checksums what the migration does, not its description', function () {
    expect(migrationRisk(def([{ op: 'backfill', field: 's', value: 'x' }]))).to.equal('safe');
    expect(
      migrationRisk(
        def([
          { op: 'backfill', field: 's', value: 'x' },
          { op: 'trim', field: 's' },
        ]),
      ),
    ).to.equal('warning');
    expect(migrationRisk(def([{ op: 'mapValues', field: 's', values: { x: null } }]))).to.equal('destructive');
    expect(migrationRisk(def([{ op: 'move', to: 'pages' }]))).to.equal('destructive');
    const a = def([{ op: 'trim', field: 's' }], { description: 'one' });
    const b = def([{ op: 'trim', field: 's' }], { description: 'two' });
    const c = def([{ op: 'lowercase', field: 's' }]);
    expect(definitionChecksum(a)).to.equal(definitionChecksum(b));
    expect(definitionChecksum(a)).to.not.equal(definitionChecksum(c));
  });

  it('renames, transforms and backfills; a second run changes nothing', function () {
    const s = state(
      {
        posts: [
          { id: 'p1', title: 'A', s: '  Mixed ' },
          { id: 'p2', title: null, s: 'x', headline: 'keep' },
          { id: 'p3', s: '7' },
        ],
      },
      { posts: POSTS },
    );
    const m = def([
      { op: 'renameField', from: 'title', to: 'headline' },
      { op: 'trim', field: 's' },
      { op: 'lowercase', field: 's' },
      { op: 'cast', field: 's', to: 'number', into: 'n', where: { status: 'draft', headline: null } },
      { op: 'backfill', field: 'headline', fromField: 's' },
    ]);
    const r = runMigration(m, s);
    expect(r.problems).to.deep.equal([]);
    const byId = Object.fromEntries(r.updated.map((u) => [u.id, u.changes]));
    expect(byId.p1).to.deep.equal({ title: null, headline: 'A', s: 'mixed' });
    expect(byId.p2).to.equal(undefined);
    expect(byId.p3).to.deep.equal({ n: 7, headline: '7' });
    expect(r.samples[0]).to.equal('p1: title "A" -> null, headline null -> "A", s "  Mixed " -> "mixed"');
    expect(runMigration(m, s).updated).to.deep.equal([]);
  });

  it('reports failed casts, unknown fields and invalid values as problems', function () {
    const s = state(
      {
        posts: [
          { id: 'p1', s: 'n/a' },
          { id: 'p2', s: 'c' },
        ],
      },
      { posts: POSTS },
    );
    expect(runMigration(def([{ op: 'cast', field: 's', to: 'number', into: 'n' }]), s).problems[0]).to.match(
      /entry p1: cannot cast "n\/a" to a number/,
    );
    expect(runMigration(def([{ op: 'trim', field: 'nope' }]), s).problems[0]).to.match(/has no field 'nope'/);
    expect(runMigration(def([{ op: 'renameField', from: 's', to: 'cat' }]), s).problems[0]).to.match(
      /entry p1: "n\/a" is not a valid select for 'cat'/,
    );
    expect(runMigration(def([{ op: 'cast', field: 's', to: 'number' }], { id: 'x' }), s).problems.length).to.be.greaterThan(0);
  });

  it('moves matching entries with their values, maps fields, warns about dropped values, refuses slug clashes', function () {
    const s = state(
      {
        posts: [
          { id: 'p1', title: 'T', s: 'page', slug: 'one', n: 5 },
          { id: 'p2', title: 'U', s: 'post' },
          { id: 'p3', title: 'V', s: 'page', slug: 'taken', n: 3 },
        ],
        pages: [{ id: 'g1', slug: 'taken' }],
      },
      {
        posts: POSTS,
        pages: [
          { name: 'heading', type: 'text' },
          { name: 's', type: 'text' },
        ],
      },
    );
    const r = runMigration(def([{ op: 'move', where: { s: 'page' }, to: 'pages', fields: { title: 'heading' } }]), s);
    expect(r.moved.map((mv) => [mv.row.id, mv.from, mv.to, mv.row.values])).to.deep.equal([
      ['p1', 'posts', 'pages', { heading: 'T', s: 'page' }],
    ]);
    expect(r.problems.join(' ')).to.match(/entry p3: slug 'taken' is taken in 'pages'/);
    expect(r.warnings.join(' ')).to.match(/values of n are dropped/);
    expect(s.rows.get('posts')!.has('p1')).to.equal(false);
  });
});
