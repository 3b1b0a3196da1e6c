import { expect } from 'chai';
import { fixturePlugin, useTestKernel } from '../helpers/kernel.js';

describe('request scope', function () {
  const probe = () => (globalThis as any).__cmsScopeProbe as { created: number; disposed: number };
  const t = useTestKernel({ plugins: [fixturePlugin('test-echo')] });

  it('gives each request its own scope with requestId, and disposes it even when the handler throws', async function () {
    const start = { ...probe() };
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const res = await t.request('/api/open/probe', { headers: { 'x-request-id': `request-number-${i}` } });
      expect(res.status).to.equal(200);
      ids.add((await res.json()).data.requestId);
    }
    expect([...ids]).to.deep.equal([0, 1, 2, 3, 4].map((i) => `request-number-${i}`));
    for (let i = 0; i < 3; i++) expect((await t.request('/api/open/probe?fail=yes')).status).to.equal(500);
    const bad = await t.request('/api/open/probe?fail=maybe');
    expect(bad.status).to.equal(400);
    expect(probe().created - start.created).to.equal(8);
    expect(probe().disposed - start.disposed).to.equal(8);
  });

  it('resolves plugin models initialised by the kernel (migration ran once, model reads it)', async function () {
    const res = await t.request('/api/open/runs');
    expect(res.status).to.equal(200);
    expect((await res.json()).data).to.deep.equal({ runs: 1 });
  });
});
