/**
 * The MCP server's other ways in and out (issue 39, item 3): `cms mcp` over stdio driven by the SDK's
 * StdioClientTransport (the compiled CLI in a child process, on the installation's SQLite file or MariaDB database
 * while it runs), media
 * by URL through the outbound guard (an internal address refused, then allowed when the operator allows it), and a
 * key that holds publish publishing when the call asks.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { AuditLog } from '../../kernel/audit.js';
import { createLocalClient } from '../../plugins/content/local-client.js';
import { CLI, childEnv } from '../helpers/cli-run.js';
import { tempDir, useCleanup, useTestKernel } from '../helpers/kernel.js';
import { imageBytes } from '../helpers/media-upload.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { signInCookie } from '../helpers/users.js';
import { apiKey, body, connect, isError, MCP_PASSWORD } from '../helpers/mcp.js';

const PASSWORD = MCP_PASSWORD;
const OWNER = { email: 'mcp-owner@example.com', password: PASSWORD, role: 'editor' };

for (const variant of DB_VARIANTS)
  describe(`mcp: cms mcp over stdio (${variant.name})`, function () {
    this.timeout(90000);
    const cleanup = useCleanup();
    const t = useTestKernel(
      { db: variant.name, config: { plugins: { options: { auth: { bcryptRounds: 4 } } } } },
      { variant, users: [OWNER] },
    );

    it('serves the tools over stdio with the key of CMS_MCP_KEY; logs stay off stdout; a bad key exits 1', async function () {
      await createLocalClient(t.kernel).collections.create({ name: 'notes', fields: [{ name: 'title', type: 'text' }] } as never);
      const key = await apiKey(t, OWNER, 'desktop-agent', ['content:read', 'content:write']);
      const cwd = tempDir('cms-mcp-stdio-');
      cleanup.push(cwd);
      // The installation's own database: its SQLite file while the kernel runs, or its MariaDB database.
      const db: Record<string, string> = t.dbUrl ? { DB_TYPE: 'mariadb', DB_URL: t.dbUrl } : { DB_TYPE: 'sqlite' };
      const env = childEnv(t.dataDir, { ...db, REDIS_URL: '', LOG_LEVEL: 'info', CMS_MCP_KEY: key }) as Record<string, string>;
      const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], env, cwd, stderr: 'pipe' });
      let stderr = '';
      transport.stderr?.on('data', (c: Buffer) => void (stderr += c.toString()));
      const client = new Client({ name: 'stdio-test', version: '1.0.0' });
      // A protocol error (a log line on stdout) would fail the connection or a call.
      await client.connect(transport);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((x) => x.name)).to.include.members(['describe_model', 'create_entry']);
        const created = body(
          await client.callTool({ name: 'create_entry', arguments: { collection: 'notes', data: { title: 'From stdio' } } }),
        );
        expect(created).to.include({ title: 'From stdio', status: 'draft' });
        expect((await createLocalClient(t.kernel).entries('notes').get(created._id)).title).to.equal('From stdio');
      } finally {
        await client.close();
      }
      expect(stderr).to.contain('serving over stdio');
      const audit = t.kernel.container.resolve<AuditLog>('audit');
      const entries = await audit.list({ action: 'mcp.create_entry' });
      expect(entries.items[0]!.details).to.include({ keyName: 'desktop-agent', via: 'stdio' });
      const bad = new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp'],
        env: { ...env, CMS_MCP_KEY: 'sck_unknown' },
        cwd,
        stderr: 'pipe',
      });
      let badErr = '';
      bad.stderr?.on('data', (c: Buffer) => void (badErr += c.toString()));
      const exited = new Promise<void>((resolve) => (bad.onclose = () => resolve()));
      await new Client({ name: 'bad', version: '1' }).connect(bad).catch(() => undefined);
      await exited;
      expect(badErr).to.contain('The API key is unknown, revoked or expired');
    });
  });

async function fileServer(): Promise<{ server: Server; url(path: string): string }> {
  const png = await imageBytes(8, 8);
  const server = createServer((req, res) => {
    if (req.url === '/cat.png') res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    else res.writeHead(302, { location: 'http://169.254.169.254/latest' }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: (path) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}` };
}

for (const variant of DB_VARIANTS) {
  describe(`mcp: media by URL and publishing with the permission (${variant.name})`, function () {
    this.timeout(60000);
    let files: Awaited<ReturnType<typeof fileServer>>;
    const t = useTestKernel(
      { db: variant.name, config: { plugins: { options: { auth: { bcryptRounds: 4 } } } } },
      { variant, users: [OWNER] },
    );
    before(async () => void (files = await fileServer()));
    after(() => files?.server.close());

    it('refuses a URL on an internal address (the outbound guard): nothing is fetched or stored', async function () {
      const key = await apiKey(t, OWNER, 'media-agent', ['media:read', 'media:write']);
      const client = await connect(t, key);
      try {
        const refused = await client.callTool({ name: 'upload_media_by_url', arguments: { url: files.url('/cat.png') } });
        expect(isError(refused)).to.equal(true);
        expect(body(refused)).to.include({ error: 'VALIDATION_ERROR' });
        expect(body(refused).message).to.contain('internal address');
        const media = t.kernel.container.resolve<(i?: unknown) => { list(): Promise<{ total: number }> }>('mediaClient')();
        expect((await media.list()).total).to.equal(0);
      } finally {
        await client.close();
      }
    });

    it('publishes when the key holds publish and the call asks; a draft otherwise', async function () {
      await createLocalClient(t.kernel).collections.create({ name: 'news', fields: [{ name: 'title', type: 'text' }] } as never);
      const key = await apiKey(
        t,
        OWNER,
        'publisher',
        ['content:read', 'content:write'],
        [{ collection: 'news', actions: ['read', 'create', 'update', 'publish'] }],
      );
      const client = await connect(t, key);
      try {
        const draft = body(await client.callTool({ name: 'create_entry', arguments: { collection: 'news', data: { title: 'Quiet' } } }));
        expect(draft.status).to.equal('draft');
        const live = body(
          await client.callTool({ name: 'create_entry', arguments: { collection: 'news', data: { title: 'Loud' }, publish: true } }),
        );
        expect(live.status).to.equal('published');
        const updated = body(
          await client.callTool({
            name: 'update_entry',
            arguments: { collection: 'news', id: live._id, data: { title: 'Louder' }, publish: true },
          }),
        );
        expect(updated).to.include({ title: 'Louder', status: 'published' });
      } finally {
        await client.close();
      }
    });
  });
}

describe('mcp: media by URL where the operator allows internal addresses (sqlite)', function () {
  this.timeout(60000);
  let files: Awaited<ReturnType<typeof fileServer>>;
  const ADMIN = { email: 'mcp-admin@example.com', password: PASSWORD, role: 'admin' };
  const t = useTestKernel(
    { config: { outbound: { allowPrivate: true }, plugins: { options: { auth: { bcryptRounds: 4 } } } } as never },
    { users: [OWNER, ADMIN] },
  );
  before(async () => void (files = await fileServer()));
  after(() => files?.server.close());

  it('stores the file in the media library, follows no redirect, and a revert deletes it', async function () {
    const key = await apiKey(t, OWNER, 'media-agent', ['media:read', 'media:write']);
    const client = await connect(t, key);
    try {
      const stored = body(await client.callTool({ name: 'upload_media_by_url', arguments: { url: files.url('/cat.png') } }));
      expect(stored).to.include({ filename: 'cat.png', mimeType: 'image/png' });
      const redirect = await client.callTool({ name: 'upload_media_by_url', arguments: { url: files.url('/moved') } });
      expect(body(redirect).message).to.contain('answered 302');
      const media = t.kernel.container.resolve<(i?: unknown) => { list(): Promise<{ total: number }> }>('mediaClient')();
      expect((await media.list()).total).to.equal(1);
      const cookie = (await signInCookie(t, ADMIN.email, PASSWORD))!;
      const sessions = (await (await t.request('/api/mcp/sessions', { headers: { cookie } })).json()).data;
      const res = await t.request(`/api/mcp/sessions/${sessions.items[0]._id}/revert`, {
        method: 'POST',
        headers: { cookie, origin: t.url },
      });
      expect((await res.json()).data).to.include({ reverted: 1 });
      expect((await media.list()).total).to.equal(0);
    } finally {
      await client.close();
    }
  });
});
