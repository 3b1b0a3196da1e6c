import { expect } from 'chai';
import { fixturePlugin, startTestKernel, type TestKernel } from '../helpers/kernel.js';

const PASSWORD = 'correct horse battery';
/** Depth 3 (posts > items > _id); cost 1 + 100 x 1 = 101. */
const QUERY = '{ posts(limit: 100) { items { _id } } }';

/** A kernel after headless setup: seeded settings and the default collections (posts among them). */
function kernel(graphql: Record<string, unknown> = {}): Promise<TestKernel> {
  return startTestKernel({
    setup: true,
    plugins: [fixturePlugin('test-identity')],
    config: {
      plugins: { options: { graphql, auth: { bcryptRounds: 4 }, setup: { admin: { email: 'owner@example.com', password: PASSWORD } } } },
    },
  });
}

describe('GRAPHQL_MAX_DEPTH and GRAPHQL_MAX_COST (System Settings)', function () {
  this.timeout(60000);
  const kernels: TestKernel[] = [];
  after(async () => {
    for (const k of kernels) await k.close();
  });
  const run = async (t: TestKernel, headers: Record<string, string> = {}) => {
    const res = await t.request('/api/graphql', { method: 'POST', identity: 'editor', headers, json: { query: QUERY } });
    const body = await res.json();
    return { status: res.status, codes: (body.errors ?? []).map((e: any) => e.extensions?.code), message: body.errors?.[0]?.message };
  };
  const settingsOf = (t: TestKernel) => t.kernel.container.resolve<{ set(k: string, v: unknown): Promise<void> }>('settings');

  it('a changed limit applies to the next operation; an out-of-bounds value leaves the default', async () => {
    const t = await kernel();
    kernels.push(t);
    expect((await run(t)).status).to.equal(200);
    await settingsOf(t).set('GRAPHQL_MAX_DEPTH', 2);
    const deep = await run(t);
    expect(deep.status).to.equal(400);
    expect(deep.codes).to.deep.equal(['GRAPHQL_DEPTH_LIMIT']);
    expect(deep.message).to.match(/3 deep; the limit is 2/);
    // Another tenant keeps the default.
    expect((await run(t, { 'x-test-tenant': 'other' })).status).to.equal(200);
    await settingsOf(t).set('GRAPHQL_MAX_DEPTH', 10);
    await settingsOf(t).set('GRAPHQL_MAX_COST', 50);
    const costly = await run(t);
    expect(costly.codes).to.deep.equal(['GRAPHQL_COST_LIMIT']);
    expect(costly.message).to.match(/cost is 101; the limit is 50/);
    await settingsOf(t).set('GRAPHQL_MAX_COST', 5); // below the accepted minimum (10): the default 1000 counts
    expect((await run(t)).status).to.equal(200);
  });

  it('a limit set in plugins.options.graphql wins over the setting', async () => {
    const t = await kernel({ maxDepth: 5 });
    kernels.push(t);
    await settingsOf(t).set('GRAPHQL_MAX_DEPTH', 2);
    expect((await run(t)).status).to.equal(200);
    await settingsOf(t).set('GRAPHQL_MAX_COST', 50);
    expect((await run(t)).codes).to.deep.equal(['GRAPHQL_COST_LIMIT']);
  });
});
