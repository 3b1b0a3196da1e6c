import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { until } from '../helpers/until.js';
import { corePlugin, fixturePlugin, get, slowCorePlugin, startTestKernel, tempDir, writePlugin } from '../helpers/kernel.js';

describe('boot phases and shutdown', function () {
  it('walks IDLE -> SETUP -> CORE -> READY -> FULL -> WARMED, visible in /api/system/health', async function () {
    const t = await startTestKernel();
    try {
      const body = await (await t.request('/api/system/health')).json();
      expect(body.data.phase).to.equal('WARMED');
      expect(body.data.status).to.equal('ok');
      expect(body.data.phases.map((p: { phase: string }) => p.phase)).to.deep.equal(['IDLE', 'SETUP', 'CORE', 'READY', 'FULL', 'WARMED']);
      expect(body.data.checks.database.status).to.equal('ok');
      expect(body.data.checks.cache).to.include({ status: 'ok', backend: 'memory' });
    } finally {
      await t.close();
    }
  });

  it('answers 503 before READY (health shows the phase) and serves from READY on', async function () {
    const slow = slowCorePlugin(1500);
    const t = await startTestKernel({ plugins: [fixturePlugin('test-echo'), slow], noStart: true });
    const starting = t.kernel.start();
    try {
      const during = await until(async () => {
        const res = await get(`${t.url}/api/system/health`);
        const body = await res.json();
        return body.data.phase === 'CORE' ? body : undefined;
      }, 'phase CORE');
      expect(during.data.status).to.equal('starting');
      const blocked = await get(`${t.url}/api/open/stable`);
      expect(blocked.status).to.equal(503);
      expect(blocked.headers.get('retry-after')).to.equal('5');
      expect((await blocked.json()).error).to.equal('SERVICE_UNAVAILABLE');
      expect((await get(`${t.url}/api/health`)).status).to.equal(503);
      await starting;
      expect((await get(`${t.url}/api/open/stable`)).status).to.equal(200);
      expect((await get(`${t.url}/api/health`)).status).to.equal(200);
    } finally {
      await starting.catch(() => undefined);
      await t.close();
    }
  });

  it('serves READY routes while a FULL-phase plugin boots; its own routes answer 503 until it has', async function () {
    const t = await startTestKernel({
      plugins: [fixturePlugin('test-echo'), fixturePlugin('test-lifecycle')],
      config: { plugins: { options: { 'test-lifecycle': { bootDelayMs: 1500 } } } },
      noStart: true,
    });
    const starting = t.kernel.start();
    try {
      await until(async () => ((await get(`${t.url}/api/open/stable`)).status === 200 ? true : undefined), 'READY');
      const early = await get(`${t.url}/api/lifecycle/state`);
      expect(early.status).to.equal(503);
      expect((await early.json()).message).to.include('test-lifecycle');
      await starting;
      expect((await get(`${t.url}/api/lifecycle/state`)).status).to.equal(200);
    } finally {
      await starting.catch(() => undefined);
      await t.close();
    }
  });

  it('closes plugins in reverse boot order and lets in-flight requests finish', async function () {
    const order = ((globalThis as any).__cmsCloseOrder ??= []) as string[];
    order.length = 0;
    const t = await startTestKernel({ plugins: [fixturePlugin('test-echo'), fixturePlugin('test-lifecycle')] });
    const url = t.url;
    const inFlight = get(`${url}/api/open/slow?ms=600`);
    await sleep(100);
    await t.close();
    const res = await inFlight;
    expect(res.status).to.equal(200);
    expect((await res.json()).data.waited).to.equal(600);
    expect(order).to.deep.equal(['test-lifecycle', 'test-echo']);
    let refused = false;
    await get(`${url}/api/health`).catch(() => {
      refused = true;
    });
    expect(refused, 'server still accepting after close').to.equal(true);
    expect(t.kernel.phase).to.equal('IDLE');
  });

  it('a plugin whose boot throws stops the boot with an error naming it, and closes what was opened', async function () {
    const broken = corePlugin('broken-boot', "throw new Error('cannot reach the widget service');");
    const t = await startTestKernel({ plugins: [broken], noStart: true });
    let message = '';
    await t.kernel.start().catch((err: Error) => {
      message = err.message;
    });
    expect(message).to.equal("Plugin 'broken-boot' failed to boot: cannot reach the widget service");
    expect(t.kernel.server?.listening).to.equal(false);
    await t.close();
  });

  it('shows a failing health check as degraded; only system:read callers see its error text', async function () {
    const root = tempDir();
    const failing = writePlugin(
      root,
      { id: 'flaky-check', provides: { healthChecks: ['search-index'] } },
      "export default { register({ registries }) { registries.healthChecks.add({ id: 'search-index', async check() { throw new Error('connect ECONNREFUSED 10.9.8.7:9200'); } }); } };\n",
    );
    const t = await startTestKernel({ plugins: [fixturePlugin('test-identity'), failing] });
    try {
      const guest = (await t.request('/api/system/health')).json();
      const admin = (await t.request('/api/system/health', { identity: 'editor' })).json();
      const [g, a] = [(await guest).data, (await admin).data];
      expect(g.status).to.equal('degraded');
      expect(g.checks['search-index']).to.deep.equal({ status: 'down', error: 'unavailable' });
      expect(JSON.stringify(g)).to.not.include('10.9.8.7');
      expect(a.checks['search-index']).to.deep.equal({ status: 'down', error: 'connect ECONNREFUSED 10.9.8.7:9200' });
    } finally {
      await t.close();
    }
  });
});
