import { expect } from 'chai';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { QueryTypes } from 'sequelize';
import { RemoteClient } from '../../plugins/content-sync/remote-client.js';
import { TransferStore } from '../../plugins/content-sync/transfer-store.js';
import { fixturePlugin, startTestKernel, tempDir, type TestKernel } from '../helpers/kernel.js';
import { startChildInstance, startCuttingProxy, type ChildInstance } from '../helpers/content-sync-rig.js';

/**
 * Content sync without packages: channels (connection test, wrong and revoked keys, the key encrypted
 * at rest and never answered), the remote-facing endpoints' authorisation, and the transfer protocol
 * (chunked uploads with offsets, downloads with Range, both resumed after a dropped connection).
 * Instance A runs in this process, instance B in a child process (own data folder and SQLite file).
 */
describe('content sync: channels and transfers (two processes)', function () {
  this.timeout(120000);
  let a: TestKernel;
  let b: ChildInstance;
  const cleanup: string[] = [];
  const options = { chunkBytes: 512, retryDelayMs: 10, requestTimeoutMs: 5000, retries: 3, maxOpenTransfers: 3 };

  before(async function () {
    [a, b] = await Promise.all([
      startTestKernel({
        plugins: [fixturePlugin('test-identity')],
        // Both instances are on loopback: the operator switch lets the channel reach them.
        config: { outbound: { allowPrivate: true }, plugins: { options: { 'content-sync': options } } } as never,
      }),
      startChildInstance({ CS_SYNC_OPTIONS: JSON.stringify({ maxOpenTransfers: 50 }) }),
    ]);
  });
  after(async () => {
    await Promise.all([a?.close(), b?.stop()]);
    for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
  });

  const post = (path: string, json: unknown, identity = 'admin') => a.request(path, { method: 'POST', identity, json });

  it('creates a channel only after the remote accepted its key; never answers or stores the key in clear', async function () {
    const { key } = await b.apiKey(['content:read', 'content:sync']);
    const wrong = await post('/api/content-sync/channels', { name: 'wrong', url: b.url, apiKey: 'sck_' + 'x'.repeat(43) });
    const wrongBody = await wrong.json();
    // A wrong key is the client's mistake: 400 with the reason in words (issue 32, item 15; it was 502).
    expect(wrong.status, JSON.stringify(wrongBody)).to.equal(400);
    expect(wrongBody.error).to.equal('SYNC_REMOTE_AUTH_FAILED');
    expect(wrongBody.message).to.contain('401 Unauthorized').and.contain('unknown, revoked or expired').and.not.contain('sck_');

    const closed = await post('/api/content-sync/channels', { name: 'down', url: 'http://127.0.0.1:9', apiKey: key });
    const closedBody = await closed.json();
    expect(closed.status).to.equal(502);
    expect(closedBody.error).to.equal('SYNC_REMOTE_UNREACHABLE');
    expect(JSON.stringify(closedBody)).to.not.contain(key);

    const badUrl = await post('/api/content-sync/channels', { name: 'ftp', url: 'ftp://example.com', apiKey: key });
    expect(badUrl.status).to.equal(400);
    const withCredentials = await post('/api/content-sync/channels', { name: 'creds', url: 'http://u:p@127.0.0.1:1', apiKey: key });
    expect(withCredentials.status).to.equal(400);

    const readOnly = await b.apiKey(['content:read'], 'read only');
    const forbidden = await post('/api/content-sync/channels', { name: 'ro', url: b.url, apiKey: readOnly.key });
    const forbiddenBody = await forbidden.json();
    expect(forbidden.status).to.equal(400);
    expect(forbiddenBody.error).to.equal('SYNC_REMOTE_AUTH_FAILED');
    expect(forbiddenBody.message).to.contain('403 Forbidden').and.contain('content:sync');

    const created = await post('/api/content-sync/channels', { name: 'B', url: `${b.url}/`, apiKey: key });
    const channel = (await created.json()).data;
    expect(created.status, JSON.stringify(channel)).to.equal(201);
    expect(channel.channelId).to.be.a('string');
    expect(channel.url).to.equal(`${b.url}/`);
    expect(channel.remoteInstallationId).to.be.a('string').with.length.greaterThan(10);
    expect(JSON.stringify(channel)).to.not.contain(key);

    const again = await post('/api/content-sync/channels', { name: 'B', url: b.url, apiKey: key });
    expect(again.status).to.equal(409);
    expect((await again.json()).error).to.equal('SYNC_CHANNEL_EXISTS');

    const list = await a.request('/api/content-sync/channels', { identity: 'viewer' });
    const listText = await list.text();
    expect(list.status).to.equal(200);
    expect(listText).to.not.contain(key);
    const channels = JSON.parse(listText).data.channels;
    expect(channels.map((c: { name: string }) => c.name)).to.deep.equal(['B']);
    expect(channels[0]).to.include({ channelId: channel.channelId, name: 'B' });
    expect(channels[0]).to.not.have.property('apiKey');

    const rows = await a.kernel.sequelize.query<{ api_key: string }>('SELECT api_key FROM cms_content_sync_channels WHERE id = ?', {
      replacements: [channel.channelId],
      type: QueryTypes.SELECT,
    });
    expect(rows[0]!.api_key).to.match(/^v1\./);
    expect(rows[0]!.api_key).to.not.contain(key).and.not.contain(key.slice(4, 20));

    // The viewer may list, not create.
    expect((await post('/api/content-sync/channels', { name: 'v', url: b.url, apiKey: key }, 'viewer')).status).to.equal(403);
  });

  it("never repeats a remote's body in an error: the status in words (and an error code) only", async function () {
    const SECRET = 'remote-text-5521';
    const answers: Record<string, [number, string, string]> = {
      '/unauth': [401, 'application/json', JSON.stringify({ success: false, error: 'UNAUTHORIZED', message: SECRET })],
      '/html': [500, 'text/html', `<html><body>${SECRET} stack trace</body></html>`],
      '/teapot': [418, 'application/json', JSON.stringify({ success: false, error: `no code ${SECRET}`, message: SECRET })],
      '/busy': [409, 'application/json', JSON.stringify({ success: false, error: 'SOME_CODE', message: SECRET })],
    };
    const remote = createServer((req, res) => {
      const [status, type, body] = answers[`/${(req.url ?? '').split('/')[1]}`] ?? [404, 'text/plain', SECRET];
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    });
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
    try {
      const expected: Record<string, [number, string, string]> = {
        '/unauth': [400, 'SYNC_REMOTE_AUTH_FAILED', '401 Unauthorized'],
        '/html': [502, 'SYNC_REMOTE_PROTOCOL', '500 Internal Server Error'],
        '/teapot': [502, 'SYNC_REMOTE_REFUSED', "418 I'm a Teapot"],
        '/busy': [502, 'SYNC_REMOTE_REFUSED', '409 Conflict (SOME_CODE)'],
      };
      for (const [path, [status, code, words]] of Object.entries(expected)) {
        const res = await post('/api/content-sync/channels', { name: `echo${path.slice(1)}`, url: `${base}${path}`, apiKey: 'sck_echo' });
        const text = await res.text();
        expect(res.status, `${path}: ${text}`).to.equal(status);
        expect(JSON.parse(text).error, path).to.equal(code);
        expect(JSON.parse(text).message, path).to.contain(words);
        expect(text, path).to.not.contain(SECRET).and.not.contain('sck_echo');
      }
    } finally {
      await new Promise<void>((resolve) => remote.close(() => resolve()));
    }
  });

  it('tests a channel; a revoked key is refused with a clear code when testing and when planning', async function () {
    const { id, key } = await b.apiKey(['content:read', 'content:sync'], 'to revoke');
    const created = await post('/api/content-sync/channels', { name: 'revocable', url: b.url, apiKey: key });
    const channel = (await created.json()).data;
    expect(created.status).to.equal(201);
    const ok = (await (await post(`/api/content-sync/channels/${channel.channelId}/test`, {})).json()).data;
    expect(ok.ok).to.equal(true);
    expect(ok.remoteInstallationId).to.equal(channel.remoteInstallationId);
    expect(ok.latencyMs).to.be.a('number');

    await b.revoke(id);
    const refused = await post(`/api/content-sync/channels/${channel.channelId}/test`, {});
    const refusedBody = (await refused.json()).data;
    expect(refused.status).to.equal(200);
    expect(refusedBody.ok).to.equal(false);
    expect(refusedBody.error.code).to.equal('SYNC_REMOTE_AUTH_FAILED');
    expect(JSON.stringify(refusedBody)).to.not.contain(key);

    for (const direction of ['push', 'pull']) {
      const plan = await post('/api/content-sync/plan', { channelId: channel.channelId, direction });
      const body = await plan.json();
      expect(plan.status, JSON.stringify(body)).to.equal(400);
      expect(body.error).to.equal('SYNC_REMOTE_AUTH_FAILED');
      expect(JSON.stringify(body)).to.not.contain(key);
    }

    // A wrong key stored without the test (?test=false) is refused when planning.
    const untested = await post('/api/content-sync/channels?test=false', { name: 'untested', url: b.url, apiKey: 'sck_' + 'y'.repeat(43) });
    const untestedChannel = ((await untested.json()) as any).data;
    expect(untested.status).to.equal(201);
    expect(untestedChannel.remoteInstallationId).to.equal(null);
    const wrongPlan = await post('/api/content-sync/plan', { channelId: untestedChannel.channelId, direction: 'pull' });
    expect(wrongPlan.status).to.equal(400);
    expect(((await wrongPlan.json()) as any).error).to.equal('SYNC_REMOTE_AUTH_FAILED');

    const unknown = await post('/api/content-sync/plan', { channelId: randomUUID(), direction: 'push' });
    expect(unknown.status).to.equal(404);
    expect((await unknown.json()).error).to.equal('SYNC_CHANNEL_NOT_FOUND');
    const bad = await post('/api/content-sync/plan', { channelId: channel.channelId, direction: 'sideways' });
    expect(bad.status).to.equal(400);

    const deleted = await a.request(`/api/content-sync/channels/${channel.channelId}`, { method: 'DELETE', identity: 'admin' });
    expect(deleted.status).to.equal(200);
    const gone = await a.request(`/api/content-sync/channels/${channel.channelId}`, { method: 'DELETE', identity: 'admin' });
    expect(gone.status).to.equal(404);
  });

  it('the remote endpoints need a key (or identity) with content:sync', async function () {
    const hello = await fetch(`${b.url}/api/content-sync/remote/hello`);
    expect(hello.status).to.equal(401);
    const viewer = await b.as('viewer', 'GET', '/api/content-sync/remote/hello');
    expect(viewer.status).to.equal(403);
    const { key } = await b.apiKey(['content:read', 'content:sync'], 'hello');
    const ok = await fetch(`${b.url}/api/content-sync/remote/hello`, { headers: { authorization: `Bearer ${key}` } });
    const body = ((await ok.json()) as any).data;
    expect(ok.status).to.equal(200);
    expect(body).to.have.keys('installationId', 'version', 'collections');
  });

  it('uploads chunks at the received offset: repeated chunks are harmless, a gap is 409 with the offset', async function () {
    const { key } = await b.apiKey(['content:read', 'content:sync'], 'uploads');
    const id = randomUUID();
    const data = randomBytes(30);
    const put = (start: number, end: number, total = 30, body = data.subarray(start, end + 1)) =>
      fetch(`${b.url}/api/content-sync/remote/uploads/${id}`, {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/octet-stream',
          'content-range': `bytes ${start}-${end}/${total}`,
        },
        body,
      });
    const first = await put(0, 9);
    expect(first.status).to.equal(200);
    expect(((await first.json()) as any).data).to.deep.equal({ received: 10, total: 30 });
    const gap = await put(20, 29);
    const gapBody = (await gap.json()) as any;
    expect(gap.status).to.equal(409);
    expect(gapBody).to.include({ error: 'SYNC_TRANSFER_OFFSET', received: 10, total: 30 });
    expect(((await (await put(0, 9)).json()) as any).data).to.deep.equal({ received: 10, total: 30 });
    expect((await put(10, 19, 31)).status, 'another total').to.equal(400);
    expect((await put(10, 19, 30, data.subarray(10, 15))).status, 'shorter than announced').to.equal(400);
    const state = await fetch(`${b.url}/api/content-sync/remote/uploads/${id}`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await state.json()) as any).data.total).to.equal(30);
    const early = await fetch(`${b.url}/api/content-sync/remote/uploads/${id}/plan`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ sha256: createHash('sha256').update(data).digest('hex') }),
    });
    expect(early.status).to.equal(409);
    expect(((await early.json()) as any).error).to.equal('SYNC_TRANSFER_INCOMPLETE');
    const badRange = await fetch(`${b.url}/api/content-sync/remote/uploads/${id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}`, 'content-range': 'bytes 5-1/30' },
      body: 'x',
    });
    expect(badRange.status).to.equal(400);
    const huge = await fetch(`${b.url}/api/content-sync/remote/uploads/${randomUUID()}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}`, 'content-range': `bytes 0-0/${5 * 1024 ** 3}` },
      body: 'x',
    });
    expect(huge.status).to.equal(413);
    expect(((await huge.json()) as any).error).to.equal('SYNC_TRANSFER_LIMIT');
    // Another key's tenant is the same here; an unknown transfer is 404.
    const unknown = await fetch(`${b.url}/api/content-sync/remote/uploads/${randomUUID()}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(unknown.status).to.equal(404);
  });

  it('an upload resumes after a dropped connection (the remote says where it is)', async function () {
    const { key } = await b.apiKey(['content:read', 'content:sync'], 'resume');
    const proxy = await startCuttingProxy(b.url);
    try {
      const dir = tempDir('cms-sync-upload-');
      cleanup.push(dir);
      const file = join(dir, 'payload.bin');
      const data = randomBytes(5000);
      writeFileSync(file, data);
      const client = new RemoteClient(proxy.url, key, { requestTimeoutMs: 5000, retries: 3, retryDelayMs: 5, allowPrivate: true });
      // Three chunks go through, the fourth is cut on the wire, and so is the retry of the status query... once.
      proxy.cutNext('PUT', /\/remote\/uploads\//, { at: 'request' }, 3);
      proxy.cutNext('GET', /\/remote\/uploads\//, { at: 'request' });
      const id = randomUUID();
      await client.upload(id, file, data.length, 512);
      expect(proxy.cuts).to.equal(2);
      const puts = proxy.seen.filter((s) => s.startsWith('PUT'));
      expect(puts.length, 'ten chunks and the one cut').to.equal(11);
      expect(proxy.seen.filter((s) => s.startsWith('GET /api/content-sync/remote/uploads/')).length).to.equal(2);
      const state = await fetch(`${b.url}/api/content-sync/remote/uploads/${id}`, { headers: { authorization: `Bearer ${key}` } });
      expect(((await state.json()) as any).data).to.deep.equal({ received: 5000, total: 5000 });
      // The bytes arrived intact: planning with the right SHA-256 passes the transfer checks (the package itself is not one).
      const plan = await fetch(`${b.url}/api/content-sync/remote/uploads/${id}/plan`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          sha256: createHash('sha256')
            .update(data)
            .digest('hex')
            .replace(/./, (c) => (c === '0' ? '1' : '0')),
        }),
      });
      expect(plan.status).to.equal(409);
      expect(((await plan.json()) as any).error).to.equal('SYNC_TRANSFER_INCOMPLETE');
    } finally {
      await proxy.close();
    }
  });

  it('transfers are bounded (open transfers per tenant) and pruned after their time', async function () {
    // Instance A serves the remote endpoints too (maxOpenTransfers: 3 here).
    const put = (id: string) =>
      a.request(`/api/content-sync/remote/uploads/${id}`, {
        method: 'PUT',
        identity: 'admin',
        headers: { 'content-type': 'application/octet-stream', 'content-range': 'bytes 0-3/10' },
        body: 'abcd',
      });
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of ids) expect((await put(id)).status).to.equal(200);
    const refused = await put(randomUUID());
    expect(refused.status).to.equal(413);
    expect(((await refused.json()) as any).error).to.equal('SYNC_TRANSFER_LIMIT');
    const files = () => readdirSync(join(a.dataDir, 'content-sync', 'uploads')).filter((f) => ids.some((id) => f.startsWith(id)));
    expect(files()).to.have.length(3);
    await a.kernel.sequelize.query('UPDATE cms_content_sync_transfers SET expires_at = ?', { replacements: [Date.now() - 1] });
    const store = new TransferStore(() => a.kernel.sequelize, join(a.dataDir, 'content-sync'), {
      maxTransferBytes: 1e9,
      maxOpenTransfers: 3,
      transferTtlMs: 1000,
      chunkBytes: 512,
    });
    expect(await store.prune()).to.equal(3);
    expect(files()).to.have.length(0);
    expect((await put(randomUUID())).status).to.equal(200);
  });

  it('a download resumes with Range after the connection dropped mid-body, and checks the SHA-256', async function () {
    const data = randomBytes(20000);
    const sha = createHash('sha256').update(data).digest('hex');
    const ranges: string[] = [];
    const server: Server = createServer((req, res) => {
      ranges.push(String(req.headers.range ?? ''));
      const m = /^bytes=(\d+)-$/.exec(String(req.headers.range ?? ''));
      const start = m ? Number(m[1]) : 0;
      res.writeHead(m ? 206 : 200, {
        'content-type': 'application/gzip',
        'content-length': String(data.length - start),
        ...(m ? { 'content-range': `bytes ${start}-${data.length - 1}/${data.length}` } : {}),
      });
      res.end(data.subarray(start));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const proxy = await startCuttingProxy(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      proxy.cutNext('GET', /\/file/, { at: 'response', afterBytes: 7000 });
      const dir = tempDir('cms-sync-download-');
      cleanup.push(dir);
      const client = new RemoteClient(proxy.url, 'sck_test', { requestTimeoutMs: 5000, retries: 3, retryDelayMs: 5, allowPrivate: true });
      await client.download('/file', join(dir, 'a.bin'), data.length, sha);
      expect(readFileSync(join(dir, 'a.bin')).equals(data)).to.equal(true);
      expect(proxy.cuts).to.equal(1);
      expect(ranges[0]).to.equal('');
      expect(ranges[1]).to.match(/^bytes=\d+-$/);
      expect(Number(/\d+/.exec(ranges[1]!)![0])).to.be.greaterThan(0);
      // A wrong checksum is refused.
      let err: any;
      try {
        await client.download('/file', join(dir, 'b.bin'), data.length, 'f'.repeat(64));
      } catch (e) {
        err = e;
      }
      expect(err?.code).to.equal('SYNC_REMOTE_PROTOCOL');
    } finally {
      await proxy.close();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
