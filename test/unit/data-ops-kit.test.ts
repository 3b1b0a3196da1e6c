import { expect } from 'chai';
import { z } from 'zod';
import { ValidationError } from '../../kernel/errors.js';
import type { SafetyMode } from '../../plugins/data-ops/public.js';
import {
  applyAnswerSchema,
  confirmedApplyBodySchema,
  dataOpRoutes,
  historyAnswerSchema,
  jobsAnswerSchema,
  parseInput,
  planFromDiff,
  planViewSchema,
  zodIssueDetails,
  type DataDiff,
  type DiffItem,
} from '../../plugins/data-ops/public.js';

type P = { name: string };
const item = (type: string, name: string, extra: Partial<DiffItem<P>> = {}): DiffItem<P> => ({
  type,
  name,
  create: { name },
  remove: { name },
  ...extra,
});
const steps = (ops: Array<{ action: string; type: string; target: string }>) => ops.map((o) => `${o.action} ${o.type}:${o.target}`);

/** One item of every kind, types in dependency order role < setting. */
function diff(): DataDiff<P> {
  return {
    onlyInSource: [item('setting', 'new-b'), item('role', 'new-a')],
    differs: [item('role', 'changed')],
    onlyInTarget: [item('role', 'gone'), item('setting', 'gone-s')],
    same: [item('role', 'equal')],
  };
}
const typeOrder = ['role', 'setting'];
/** A diff with only the given parts (the others empty). */
const diffOf = (parts: Partial<DataDiff<P>>): DataDiff<P> => ({ onlyInSource: [], differs: [], onlyInTarget: [], same: [], ...parts });

describe('data-ops kit: planFromDiff', function () {
  it('add: creates only; a differing item is a skip with a warning; nothing deleted', function () {
    const plan = planFromDiff(diff(), 'add', { typeOrder });
    expect(steps(plan.operations)).to.deep.equal(['create role:new-a', 'create setting:new-b', 'skip role:changed']);
    expect(plan.warnings).to.deep.equal([
      { message: "The role 'changed' differs from its file; mode add never updates", item: 'role:changed' },
    ]);
    expect(plan.blockedReasons).to.deep.equal([]);
  });

  it('merge: creates, then updates; nothing deleted', function () {
    const plan = planFromDiff(diff(), 'merge', { typeOrder });
    expect(steps(plan.operations)).to.deep.equal(['create role:new-a', 'create setting:new-b', 'update role:changed']);
    expect(plan.warnings).to.deep.equal([]);
  });

  it('mirror: creates, updates, then deletes in reverse dependency order', function () {
    const plan = planFromDiff(diff(), 'mirror', { typeOrder });
    expect(steps(plan.operations)).to.deep.equal([
      'create role:new-a',
      'create setting:new-b',
      'update role:changed',
      'delete setting:gone-s',
      'delete role:gone',
    ]);
  });

  it('replace: deletes first (differing and same items too), then creates', function () {
    const plan = planFromDiff(diff(), 'replace', { typeOrder });
    expect(steps(plan.operations)).to.deep.equal([
      'delete setting:gone-s',
      'delete role:gone',
      'delete role:equal',
      'delete role:changed',
      'create role:changed',
      'create role:equal',
      'create role:new-a',
      'create setting:new-b',
    ]);
  });

  it('replace updates a protected or in-place item and leaves it alone when the same', function () {
    const d = diffOf({
      differs: [item('role', 'admin', { protectedReason: 'built in' }), item('collection', 'posts', { inPlace: true })],
      same: [item('role', 'guest', { protectedReason: 'built in' }), item('collection', 'pages', { inPlace: true })],
    });
    expect(steps(planFromDiff(d, 'replace', { typeOrder: ['collection', 'role'] }).operations)).to.deep.equal([
      'update collection:posts',
      'update role:admin',
    ]);
  });

  it('mirror and replace keep a protected item only in the target, with a warning', function () {
    const d = diffOf({ onlyInTarget: [item('role', 'admin', { protectedReason: 'built in' })] });
    for (const mode of ['mirror', 'replace'] as const) {
      const plan = planFromDiff(d, mode);
      expect(steps(plan.operations)).to.deep.equal(['skip role:admin']);
      expect(plan.warnings[0]!.message).to.equal("The role 'admin' is not in the files but is kept: built in");
    }
    expect(planFromDiff(d, 'merge').operations).to.deep.equal([]);
  });

  it('a read-only type: every change is a skip with a warning (none for a differing item in add)', function () {
    const ro = { readOnlyReason: 'read only here' };
    const d: DataDiff<P> = {
      onlyInSource: [item('theme', 'a', ro)],
      differs: [item('theme', 'b', ro)],
      onlyInTarget: [item('theme', 'c', ro)],
      same: [item('theme', 'd', ro)],
    };
    const messages = (mode: SafetyMode) => planFromDiff(d, mode).warnings.map((w) => w.message);
    expect(messages('add')).to.deep.equal(["The theme 'a' exists only in the files: read only here"]);
    expect(messages('merge')).to.deep.equal([
      "The theme 'a' exists only in the files: read only here",
      "The theme 'b' differs from its file: read only here",
    ]);
    expect(messages('replace')).to.deep.equal([
      "The theme 'a' exists only in the files: read only here",
      "The theme 'b' differs from its file: read only here",
      "The theme 'c' exists only in the database: read only here",
    ]);
    expect(planFromDiff(d, 'replace').operations.every((o) => o.action === 'skip')).to.equal(true);
  });

  it('an update issue blocks the plan in modes that update, not in add', function () {
    const d = diffOf({ differs: [item('role', 'x', { updateIssue: 'cannot' })] });
    expect(planFromDiff(d, 'merge', { messages: { updateBlocked: (_i, issue) => `files/x: ${issue}` } }).blockedReasons).to.deep.equal([
      'files/x: cannot',
    ]);
    expect(planFromDiff(d, 'add').blockedReasons).to.deep.equal([]);
  });

  it('a rename deletes the target name; skips carry the payload asked for; orderCreates reorders creates', function () {
    const d = diffOf({ onlyInSource: [item('c', 'a'), item('c', 'b')], differs: [item('r', 'new-name', { targetName: 'old-name' })] });
    const plan = planFromDiff(d, 'replace', { typeOrder: ['c', 'r'], orderCreates: (creates) => creates.reverse() });
    expect(steps(plan.operations)).to.deep.equal(['delete r:old-name', 'create r:new-name', 'create c:b', 'create c:a']);
    const add = planFromDiff(d, 'add', { skipPayload: (i) => ({ name: `skip ${i.name}` }) });
    expect(add.operations.find((o) => o.action === 'skip')).to.deep.equal({
      action: 'skip',
      type: 'r',
      target: 'new-name',
      count: 1,
      payload: { name: 'skip new-name' },
    });
    expect(add.warnings[0]!.message).to.equal("The r 'old-name' differs from its file; mode add never updates");
  });

  it('warnings follow diff.order when given', function () {
    const a = item('theme', 'a', { readOnlyReason: 'r' });
    const b = item('theme', 'b', { readOnlyReason: 'r' });
    const plan = planFromDiff({ onlyInSource: [a], differs: [b], onlyInTarget: [], same: [], order: [b, a] }, 'merge');
    expect(plan.warnings.map((w) => w.item)).to.deep.equal(['theme:b', 'theme:a']);
    expect(() => planFromDiff({ onlyInSource: [a], differs: [b], onlyInTarget: [], same: [], order: [a] }, 'merge')).to.throw(/every item/);
  });
});

describe('data-ops kit: input validation', function () {
  const schema = z.strictObject({ types: z.array(z.enum(['role'])).optional() });
  it('answers the parsed value or a ValidationError with body.<path> details', function () {
    expect(parseInput(schema, { types: ['role'] }, 'Invalid')).to.deep.equal({ types: ['role'] });
    let caught: unknown;
    try {
      parseInput(schema, { types: ['x'] }, 'Invalid plan input');
    } catch (err) {
      caught = err;
    }
    expect(caught).to.be.instanceOf(ValidationError);
    expect((caught as ValidationError).message).to.equal('Invalid plan input');
    const parsed = schema.safeParse({ types: ['x'] });
    expect(zodIssueDetails(parsed.error!.issues)[0]!.path).to.equal('body.types.0');
    expect(zodIssueDetails(parsed.error!.issues, 'query')[0]!.path).to.equal('query.types.0');
  });
});

describe('data-ops kit: dataOpRoutes', function () {
  const calls: unknown[][] = [];
  const dataOps = {
    plan: async (...args: unknown[]) => (calls.push(['plan', ...args.slice(0, 3)]), { planId: 'p1' }),
    apply: async (...args: unknown[]) => (
      calls.push(['apply', ...args.slice(0, 2)]),
      { status: 202, data: { jobId: 'j1', status: 'queued' } }
    ),
    jobs: async (...args: unknown[]) => (calls.push(['jobs', args[0], args[2]]), []),
    history: async (...args: unknown[]) => (calls.push(['history', args[0], args[2]]), []),
  };
  const routes = dataOpRoutes({
    domain: 'things',
    prefix: '/api/things',
    tags: ['things'],
    permissions: { read: 'things:read', write: 'things:write' },
    installation: 'tenant',
    plan: { summary: 'Plans', body: z.object({ mode: z.enum(['add', 'merge']).optional(), x: z.number() }).optional() },
    apply: { summary: 'Applies', description: 'Errors: ...' },
    jobs: { summary: 'Jobs' },
    history: { path: '/api/things/past', summary: 'History' },
    verify: {
      summary: 'Verifies',
      permission: 'things:read',
      body: z.object({ ids: z.array(z.string()) }),
      response: z.object({ ok: z.boolean() }),
      handler: (body) => ({ ok: body.ids.length > 0 }),
    },
  });
  const byPath = (method: string, path: string) => routes.find((r) => r.method === method && r.path === path)!;
  const run = (method: string, path: string, input: { body?: unknown; query?: unknown }) => {
    const ctx = { status: 200 } as any;
    const answer = byPath(method, path).handler({ ctx, identity: { tenantId: 't' }, scope: { dataOps }, ...input } as any);
    return { ctx, answer };
  };

  it('declares the routes with their paths, permissions, texts and schemas', function () {
    expect(routes.map((r) => `${r.method} ${r.path} ${r.permission}`)).to.deep.equal([
      'POST /api/things/plan things:write',
      'POST /api/things/apply things:write',
      'GET /api/things/jobs things:read',
      'GET /api/things/past things:read',
      'POST /api/things/verify things:read',
    ]);
    expect(routes.every((r) => r.installation === 'tenant' && r.tags?.[0] === 'things')).to.equal(true);
    expect(byPath('POST', '/api/things/plan').response).to.equal(planViewSchema);
    expect(byPath('POST', '/api/things/apply').response).to.equal(applyAnswerSchema);
    expect(byPath('POST', '/api/things/apply').request.body).to.equal(confirmedApplyBodySchema);
    expect(byPath('POST', '/api/things/apply').description).to.equal('Errors: ...');
    expect('description' in byPath('POST', '/api/things/plan')).to.equal(false);
    expect(byPath('GET', '/api/things/jobs').response).to.equal(jobsAnswerSchema);
    expect(byPath('GET', '/api/things/past').response).to.equal(historyAnswerSchema);
  });

  it('calls the engine: plan with the body less its mode, apply with the status of the answer', async function () {
    calls.length = 0;
    expect(await run('POST', '/api/things/plan', { body: { mode: 'add', x: 1 } }).answer).to.deep.equal({ planId: 'p1' });
    const applied = run('POST', '/api/things/apply', { body: { planId: 'p1', confirmed: true } });
    expect(await applied.answer).to.deep.equal({ jobId: 'j1', status: 'queued' });
    expect(applied.ctx.status).to.equal(202);
    expect(await run('GET', '/api/things/jobs', { query: { jobId: 'j1' } }).answer).to.deep.equal({ jobs: [] });
    expect(await run('GET', '/api/things/past', { query: {} }).answer).to.deep.equal({ jobs: [] });
    expect(await run('POST', '/api/things/verify', { body: { ids: ['a'] } }).answer).to.deep.equal({ ok: true });
    expect(calls).to.deep.equal([
      ['plan', 'things', { x: 1 }, 'add'],
      ['apply', 'things', { planId: 'p1', confirmed: true }],
      ['jobs', 'things', 'j1'],
      ['history', 'things', undefined],
    ]);
  });
});
