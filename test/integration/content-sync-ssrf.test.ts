import { expect } from 'chai';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChannelSecrets } from '../../plugins/content-sync/channel-secrets.js';
import { ChannelStore } from '../../plugins/content-sync/channel-store.js';
import { RemoteClient } from '../../plugins/content-sync/remote-client.js';
import { fixturePlugin, startTestKernel, type TestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';

/**
 * Content-sync channels and server-side request forgery (issue 32, item 2): without the operator switch
 * CMS_OUTBOUND_ALLOW_PRIVATE, a channel URL whose host is or resolves to a loopback, private,
 * link-local or unique-local address is refused (400 SYNC_URL_FORBIDDEN) in every notation, the key
 * is never sent there, and a stored channel whose name now resolves inside is refused again at
 * connect time. The "target" is a real HTTP server on loopback that records what reaches it.
 */
for (const variant of DB_VARIANTS)
  describe(`content sync: channels cannot reach internal addresses (SSRF, ${variant.name})`, function () {
    this.timeout(60000);
    let t: TestKernel;
    let target: Server;
    let port: number;
    const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
    const SECRET = 'internal-service-text-7731';

    before(async function () {
      requireVariant(this, variant);
      target = createServer((req, res) => {
        seen.push({ url: req.url ?? '', headers: req.headers });
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: false, error: 'UNAUTHORIZED', message: SECRET }));
      });
      await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
      port = (target.address() as AddressInfo).port;
      // The default: no CMS_OUTBOUND_ALLOW_PRIVATE.
      t = await startTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] });
    });
    after(async () => {
      await t?.close();
      // A skipped variant never made the target: waiting on `target?.close(cb)` would wait for ever (the hook then timed out).
      if (target) await new Promise<void>((resolve) => target.close(() => resolve()));
    });

    const create = (url: string, headers: Record<string, string> = {}, query = '') =>
      t.request(`/api/content-sync/channels${query}`, {
        method: 'POST',
        identity: 'editor',
        headers,
        json: { name: `c-${Math.random().toString(36).slice(2)}`, url, apiKey: 'sck_' + 'k'.repeat(43) },
      });

    it('refuses every internal address and notation with 400 SYNC_URL_FORBIDDEN; nothing reaches the target', async function () {
      expect(t.config.outbound.allowPrivate).to.equal(false);
      const urls = [
        `http://127.0.0.1:${port}`,
        `http://localhost:${port}`,
        `http://LOCALHOST.:${port}`,
        `http://api.localhost:${port}`,
        `http://0x7f000001:${port}`,
        `http://2130706433:${port}`,
        `http://127.1:${port}`,
        `http://0177.0.0.1:${port}`,
        `http://0.0.0.0:${port}`,
        `http://[::1]:${port}`,
        `http://[::ffff:127.0.0.1]:${port}`,
        `http://[0:0:0:0:0:ffff:7f00:1]:${port}`,
        'http://10.1.2.3:8080',
        'http://172.16.5.4',
        'https://192.168.1.1',
        'http://169.254.169.254/latest/meta-data',
        'http://100.64.0.1',
        'http://[fe80::1]',
        'http://[fd12:3456:789a::1]',
      ];
      for (const url of urls) {
        for (const query of ['', '?test=false']) {
          const res = await create(url, {}, query);
          const body = await res.json();
          expect(res.status, `${url}${query}: ${JSON.stringify(body)}`).to.equal(400);
          expect(body.error, url).to.equal('SYNC_URL_FORBIDDEN');
          expect(body.message).to.contain('CMS_OUTBOUND_ALLOW_PRIVATE').and.not.contain(SECRET).and.not.contain('sck_');
        }
      }
      // As another tenant's admin too.
      const other = await create(`http://127.1:${port}`, { 'x-test-tenant': 't2' });
      expect(other.status).to.equal(400);
      expect((await other.json()).error).to.equal('SYNC_URL_FORBIDDEN');
      expect(seen, 'requests that reached the internal target').to.have.length(0);
      const list = await t.request('/api/content-sync/channels', { identity: 'editor' });
      expect((await list.json()).data.channels).to.deep.equal([]);
    });

    it('checks again when connecting: a stored channel whose name resolves inside is refused when tested and planned', async function () {
      // As if the name resolved outside when the channel was made and was re-pointed since (DNS rebinding).
      const sequelize = t.kernel.sequelize;
      const store = new ChannelStore(() => sequelize, new ChannelSecrets(() => sequelize, t.config.secrets.encryptionKey));
      const channel = await store.create('default', {
        name: 'rebound',
        url: `http://localhost:${port}`,
        apiKey: 'sck_' + 'r'.repeat(43),
        remoteInstallationId: null,
        createdBy: null,
      });
      const tested = await t.request(`/api/content-sync/channels/${channel.channelId}/test`, {
        method: 'POST',
        identity: 'editor',
        json: {},
      });
      const testBody = (await tested.json()).data;
      expect(tested.status).to.equal(200);
      expect(testBody.ok).to.equal(false);
      expect(testBody.error.code).to.equal('SYNC_URL_FORBIDDEN');
      for (const direction of ['pull', 'push']) {
        const plan = await t.request('/api/content-sync/plan', {
          method: 'POST',
          identity: 'editor',
          json: { channelId: channel.channelId, direction },
        });
        const body = await plan.json();
        expect(plan.status, JSON.stringify(body)).to.equal(400);
        expect(body.error).to.equal('SYNC_URL_FORBIDDEN');
      }
      // The client itself (every request of a push or pull goes through it): a literal address and a name.
      for (const url of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
        const client = new RemoteClient(url, 'sck_x', { requestTimeoutMs: 5000, retries: 2, retryDelayMs: 1, allowPrivate: false });
        const err = await client.hello().then(
          () => null,
          (e: { code?: string }) => e,
        );
        expect(err?.code, url).to.equal('SYNC_URL_FORBIDDEN');
      }
      expect(seen, 'requests that reached the internal target').to.have.length(0);
    });
  });
