import { expect } from 'chai';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { startCluster, type Cluster } from '../../cluster/start-cluster.js';
import { call, login, nginxOf, ok, requireClusterServices, requireNginx, retryUnanswered } from '../helpers/cluster-client.js';
import { POSTS } from '../helpers/content.js';

/**
 * Issue 41: nginx (Debian's package) in front of two instances with cluster/nginx/cms.conf.template, the
 * configuration the deployment guide shows: round robin, the client's address through X-Forwarded-For
 * (CMS_TRUST_PROXY, one hop), an instance taken out while it drains, and what a kill -9 does to requests.
 * The rolling restart and the WebSocket subscription through nginx are in cluster.test.ts.
 */

/** POST from a given loopback address (127.0.0.2, ...: Linux answers the whole 127/8), as another client would. */
function postFrom(base: string, path: string, localAddress: string, body: unknown, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = request(
      `${base}${path}`,
      { method: 'POST', localAddress, agent: false, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || 'null') }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Which instance answered (its readiness body names it), through `base`. */
const instanceId = async (base: string) => (await call(base, '/api/health/ready')).body.data?.instanceId as string;

describe('cluster: nginx in front of 2 instances (the deployment guide configuration)', function () {
  this.timeout(240000);
  let c: Cluster;
  const ids = new Map<number, string>();

  before(async function () {
    const services = requireClusterServices(this, 'nginx cluster tests');
    requireNginx(this, 'nginx cluster tests');
    this.timeout(180000);
    c = await startCluster({
      instances: 2,
      ...services,
      proxy: 'nginx',
      drainMs: 3000,
      // Rate limits on (per client address, counted in Redis), generous but for the routes that set their own.
      env: { CMS_RATE_LIMIT_POINTS: '100000', CMS_POOL_MAX_THREADS: '1' },
      config: { plugins: { options: { auth: { bcryptRounds: 4 } } } },
    });
    for (const i of c.instances) ids.set(i.index, await instanceId(i.url));
  });
  after(async function () {
    this.timeout(120000);
    await c?.stop();
  });

  it('spreads requests round robin over both instances, with no stickiness', async function () {
    const seen: string[] = [];
    for (let n = 0; n < 8; n++) seen.push(await instanceId(c.url));
    for (const id of ids.values())
      expect(
        seen.filter((s) => s === id),
        JSON.stringify(seen),
      ).to.have.length(4);
  });

  it("rate limits count per client address as nginx saw it (X-Forwarded-For, one trusted hop); a client's own X-Forwarded-For does not help it", async function () {
    const forgot = (from: string, headers?: Record<string, string>) =>
      postFrom(c.url, '/api/user/forgot-password', from, { email: 'nobody@nginx.test' }, headers);
    // POST /api/user/forgot-password allows 5 a minute per client address, counted in Redis by both instances.
    const first = [];
    for (let n = 0; n < 6; n++) first.push((await forgot('127.0.0.2')).status);
    expect(first).to.deep.equal([200, 200, 200, 200, 200, 429]);
    // Another client is counted on its own.
    expect((await forgot('127.0.0.3')).status).to.equal(200);
    // It cannot claim other addresses: nginx appends the address it saw, and the instances trust that one only.
    const spoofed = [];
    for (let n = 0; n < 5; n++) spoofed.push((await forgot('127.0.0.3', { 'x-forwarded-for': `198.51.100.${n + 1}` })).status);
    expect(spoofed).to.deep.equal([200, 200, 200, 200, 429]);
    const limited = await forgot('127.0.0.2', { 'x-forwarded-for': '198.51.100.77' });
    expect(limited.status).to.equal(429);
    expect(limited.body.error).to.equal('RATE_LIMITED');
  });

  it('an instance whose readiness turned 503 (SIGTERM, draining) gets no new request through nginx; back once ready again', async function () {
    const first = c.instances[0]!;
    const exited = first.kill('SIGTERM');
    // Readiness answers 503 at once; the harness (as a deploy script would) marks it down and reloads nginx.
    await c.proxy.checkNow();
    const during: string[] = [];
    for (let n = 0; n < 10; n++) during.push(await instanceId(c.url));
    expect(new Set(during), 'answered during the drain').to.deep.equal(new Set([ids.get(2)]));
    await exited;
    await first.restart();
    await c.proxy.checkNow();
    ids.set(1, await instanceId(first.url));
    const after: string[] = [];
    for (let n = 0; n < 8; n++) after.push(await instanceId(c.url));
    expect(new Set(after), 'both answer again').to.deep.equal(new Set(ids.values()));
  });

  it('a kill -9 under load: reads are passed on to the other instance, only a write in flight on the killed one can fail (502)', async function () {
    this.timeout(180000);
    const reads = { ok: 0, failed: [] as string[] };
    const writes = { ok: 0, failed: [] as number[] };
    // Sent again when a reload of nginx closed the connection before any answer (writes carry an Idempotency-Key).
    const unanswered = { retries: 0 };
    let running = true;
    const reader = async () => {
      while (running) {
        const a = await retryUnanswered(() => call(c.url, '/api/setup/status'), unanswered).catch((err: Error) => ({
          status: 0,
          body: err.message,
        }));
        if (a.status === 200) reads.ok++;
        else reads.failed.push(`${a.status} ${JSON.stringify(a.body)}`);
      }
    };
    const admin = await login(c.url, c.admin.email, c.admin.password);
    ok(await call(c.url, '/api/collections', { cookie: admin, json: { ...POSTS, name: 'killnotes' } }), 201);
    const writer = async () => {
      for (let n = 0; running; n++) {
        // A POST: nginx passes it on when the connection was refused, not once it was sent.
        const headers = { 'idempotency-key': `kill-${c.database}-${n}` };
        const send = () => call(c.url, '/api/collections/killnotes', { cookie: admin, headers, json: { title: `kill ${n}` } });
        const a = await retryUnanswered(send, unanswered).catch(() => ({ status: 0 }));
        if (a.status === 201) writes.ok++;
        else writes.failed.push(a.status);
      }
    };
    const load = Promise.all([reader(), reader(), reader(), writer()]);
    const before = nginxOf(c).counts();
    try {
      await sleep(1000);
      await c.instances[1]!.kill('SIGKILL');
      // The harness notices only at its next readiness poll: nginx's passive checks carry the requests meanwhile.
      await sleep(2000);
    } finally {
      running = false;
      await load;
    }
    const counts = nginxOf(c).counts();
    console.log(
      `      kill -9 under load: ${reads.ok} reads answered, ${reads.failed.length} failed; ${writes.ok} writes answered, ${writes.failed.length} failed; nginx passed ${counts.retried - before.retried} requests on to the other instance; ${unanswered.retries} sent again after a reload closed their connection`,
    );
    expect(reads.failed.slice(0, 5)).to.deep.equal([]);
    expect(writes.failed.length, 'at most the one write in flight').to.be.at.most(1);
    for (const s of writes.failed) expect(s).to.equal(502);
    await c.instances[1]!.restart();
    await c.proxy.checkNow();
  });
});
