import { expect } from 'chai';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import mariadb from 'mariadb';
import { startCluster, type Cluster } from '../../cluster/start-cluster.js';
import { call, login, ok, requireClusterServices } from '../helpers/cluster-client.js';
import { POSTS } from '../helpers/content.js';

/**
 * Issue 37, item 6, the fault part: a webhook delivery survives a kill -9 of the instance sending it.
 * Two instances (real processes) on MariaDB and Redis; the receiver holds the first request open, the
 * sending instance (the lease holder in the database) is killed with SIGKILL, and the other instance
 * sends the same delivery again after the lease expired, with the same X-CMS-Delivery id and body.
 */
describe('cluster: a webhook delivery through a kill -9 of its sender (2 instances)', function () {
  this.timeout(240000);
  let c: Cluster;
  let server: Server;
  let sql: Awaited<ReturnType<typeof mariadb.createConnection>>;
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const held: ServerResponse[] = [];

  before(async function () {
    const services = requireClusterServices(this, 'cluster webhook tests');
    this.timeout(180000);
    // The first request is held open (the sender is killed meanwhile); later ones are answered 200.
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (b: Buffer) => chunks.push(b));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        if (received.length === 1) held.push(res);
        else res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    c = await startCluster({
      instances: 2,
      ...services,
      drainMs: 200,
      env: { CMS_RATE_LIMIT_ENABLED: 'false' },
      config: {
        outbound: { allowPrivate: true }, // the receiver is on loopback
        plugins: { options: { auth: { bcryptRounds: 4 }, webhooks: { pollMs: 200, leaseMs: 2000, timeoutMs: 60000 } } },
      },
    });
    const db = new URL(services.mariadbUrl);
    sql = await mariadb.createConnection({
      host: db.hostname,
      port: Number(db.port || 3306),
      user: decodeURIComponent(db.username || 'root'),
      password: decodeURIComponent(db.password),
      database: c.database,
    });
  });
  after(async function () {
    this.timeout(120000);
    for (const res of held) res.destroy();
    await sql?.end().catch(() => undefined);
    await c?.stop();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('sends the delivery again from the other instance, with the same id, once the lease expired', async function () {
    const first = c.instances[0]!;
    const admin = await login(first.url, c.admin.email, c.admin.password);
    ok(await call(first.url, '/api/collections', { cookie: admin, json: { ...POSTS, name: 'hooked' } }), 201);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    ok(await call(first.url, '/api/webhooks', { cookie: admin, json: { name: 'site', url, events: ['on:create'] } }), 201);
    ok(await call(first.url, '/api/collections/hooked', { cookie: admin, json: { title: 'through a kill' } }), 201);

    for (let waited = 0; !received.length; waited += 20) {
      if (waited > 20000) throw new Error('no delivery arrived');
      await sleep(20);
    }
    const [row] = await sql.query('SELECT id, lease_owner, status, attempts FROM cms_webhook_deliveries');
    expect(row.id).to.equal(received[0]!.headers['x-cms-delivery']);
    const owners = await Promise.all(c.instances.map(async (i) => (await call(i.url, '/api/health/ready')).body.data.instanceId as string));
    const victim = c.instances[owners.indexOf(row.lease_owner)]!;
    expect(victim, 'the lease holder is one of the instances').to.not.equal(undefined);
    await victim.kill('SIGKILL');

    for (let waited = 0; received.length < 2; waited += 50) {
      if (waited > 30000) throw new Error('the delivery was not sent again');
      await sleep(50);
    }
    expect(received[1]!.headers['x-cms-delivery']).to.equal(received[0]!.headers['x-cms-delivery']);
    expect(received[1]!.body).to.equal(received[0]!.body);
    let done: any;
    for (let waited = 0; done?.status !== 'succeeded'; waited += 50) {
      if (waited > 10000) throw new Error(`the delivery is ${done?.status}`);
      [done] = await sql.query('SELECT status, attempts, response_status FROM cms_webhook_deliveries WHERE id = ?', [row.id]);
      await sleep(50);
    }
    expect(Number(done.attempts)).to.equal(1); // the killed attempt recorded nothing
    expect(Number(done.response_status)).to.equal(200);
    await sleep(1000);
    expect(received).to.have.length(2);
  });
});
