import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { DIST_ROOT, PROJECT_ROOT } from '../../kernel/version.js';
import { get as fetch, responseCookie, tempDir, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

/** The page's database form for the database the kernel runs on (the spec's field names). */
function runningForm(t: TestKernel): Record<string, string> {
  const db = t.config.db;
  return db.type === 'sqlite'
    ? { type: 'sqlite', name: db.storage }
    : { type: 'mariadb', host: db.host, port: String(db.port), name: db.name, user: db.user, password: db.password ?? '' };
}

/** Posts an HTML form (application/x-www-form-urlencoded) to a form action. */
const submit = (t: TestKernel, action: string, fields: Record<string, string>) =>
  t.request(`/setup?/${action}`, { method: 'POST', body: new URLSearchParams(fields) });

for (const variant of DB_VARIANTS) {
  describe(`setup form actions (${variant.name})`, function () {
    this.timeout(60000);
    const t = useTestKernel(
      { db: variant.name, setup: true, config: { plugins: { options: { auth: { bcryptRounds: 4 } } } } },
      { variant },
    );

    it('?/testDatabase answers {success, message, details} or {success: false, error} with the reason', async function () {
      const ok = await submit(t, 'testDatabase', runningForm(t));
      expect(ok.status).to.equal(200);
      const body = await ok.json();
      expect(body).to.include({ success: true, message: 'Connection successful' });
      expect(body.details).to.include({ authenticated: true });
      expect(body.details.dbStats.collections).to.be.greaterThan(3);
      expect(body.details.warnings).to.deep.equal([]);

      const refused = await submit(t, 'testDatabase', { type: 'mariadb', host: '127.0.0.1', port: '1', name: 'x', user: 'root' });
      expect(refused.status).to.equal(400);
      const failure = await refused.json();
      expect(failure).to.include({ success: false, code: 'DB_CONNECTION_FAILED' });
      expect(failure.error).to.match(/ECONNREFUSED|connect/i);

      const json = await t.request('/setup?/testDatabase', { method: 'POST', json: runningForm(t) });
      expect((await json.json()).success, 'JSON bodies work as well').to.equal(true);
    });

    it('refuses an invalid form, an unknown action and a body that is neither form nor JSON in the same shape', async function () {
      const invalid = await submit(t, 'testDatabase', { type: 'oracle', name: 'x' });
      expect(invalid.status).to.equal(400);
      expect(await invalid.json()).to.include({ success: false, code: 'VALIDATION_ERROR' });
      const unknown = await submit(t, 'dropEverything', {});
      expect(unknown.status).to.equal(404);
      expect(await unknown.json()).to.include({ success: false, code: 'NOT_FOUND' });
      const text = await t.request('/setup?/testDatabase', {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'type=sqlite',
      });
      expect(text.status).to.equal(415);
      expect((await text.json()).success).to.equal(false);
    });

    it('?/seedDatabase seeds in the background and ?/completeSetup creates the admin with a session', async function () {
      const started = await submit(t, 'seedDatabase', runningForm(t));
      expect(started.status).to.equal(200);
      expect((await started.json()).success).to.equal(true);
      const deadline = Date.now() + 20000;
      let setup: Record<string, unknown> = {};
      while (Date.now() < deadline && !setup.seeded) {
        setup = (await (await t.request('/api/system/health')).json()).data.setup;
        await sleep(25);
      }
      expect(setup).to.include({ seeded: true, progress: 100 });

      const mismatch = await submit(t, 'completeSetup', {
        email: 'admin@example.com',
        password: 'a long enough password',
        confirmPassword: 'something else',
      });
      expect(mismatch.status).to.equal(400);
      expect(await mismatch.json()).to.include({ success: false, code: 'VALIDATION_ERROR' });
      const weak = await submit(t, 'completeSetup', { email: 'admin@example.com', password: 'short' });
      expect(weak.status).to.equal(400);
      expect((await weak.json()).error).to.match(/8 characters/);

      const done = await submit(t, 'completeSetup', {
        username: 'chief',
        email: 'admin@example.com',
        password: 'a long enough password',
        confirmPassword: 'a long enough password',
        siteName: 'Acme',
      });
      expect(done.status).to.equal(200);
      const body = await done.json();
      expect(body).to.include({ success: true, message: 'Setup complete' });
      expect(body.user).to.include({ email: 'admin@example.com', username: 'chief', role: 'admin' });
      const me = await t.request('/api/user/me', { headers: { cookie: responseCookie(done)! } });
      expect((await me.json()).data.role).to.equal('admin');

      const after = await submit(t, 'testDatabase', runningForm(t));
      expect(after.status).to.equal(403);
      expect(await after.json()).to.include({ success: false, code: 'SETUP_ALREADY_COMPLETE' });
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * An installation without the mariadb package: the project's node_modules linked one by one except
 * mariadb, run with --preserve-symlinks so every lookup (ours and Sequelize's) stays in that folder.
 */
describe('setup with a database driver that is not installed', function () {
  this.timeout(60000);
  let root: string;
  let child: ReturnType<typeof spawn> | undefined;
  let url: string;
  before(async () => {
    root = tempDir('cms-nodriver-');
    mkdirSync(join(root, 'node_modules'));
    for (const entry of readdirSync(join(PROJECT_ROOT, 'node_modules'))) {
      if (entry !== 'mariadb' && entry !== '.bin')
        symlinkSync(join(PROJECT_ROOT, 'node_modules', entry), join(root, 'node_modules', entry));
    }
    symlinkSync(join(PROJECT_ROOT, 'package.json'), join(root, 'package.json'));
    symlinkSync(DIST_ROOT, join(root, 'dist'));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, ['--preserve-symlinks', '--preserve-symlinks-main', join(root, 'dist', 'kernel', 'cli.js'), 'start'], {
      cwd: root,
      stdio: 'ignore',
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        CMS_DATA_DIR: join(root, 'data'),
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        CMS_POOL_MAX_THREADS: '1',
      },
    });
    const deadline = Date.now() + 30000;
    for (;;) {
      const up = await fetch(`${url}/api/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (Date.now() > deadline || child.exitCode !== null) throw new Error('the instance without mariadb did not start');
      await sleep(100);
    }
  });
  after(async () => {
    child?.kill('SIGTERM');
    if (child && child.exitCode === null) await new Promise((resolve) => child!.once('exit', resolve));
    rmSync(root, { recursive: true, force: true });
  });

  it('test-db answers 400 DB_DRIVER_MISSING with the manualCommand; the form action {success: false, manualCommand}', async () => {
    const api = await fetch(`${url}/api/setup/test-db`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'mariadb', host: '127.0.0.1', port: 3306, database: 'test', username: 'root', password: '' }),
    });
    expect(api.status).to.equal(400);
    const body = await api.json();
    expect(body).to.include({ success: false, error: 'DB_DRIVER_MISSING', manualCommand: 'npm install mariadb@3' });
    expect(body.message).to.include('npm install mariadb@3');

    const form = await fetch(`${url}/setup?/testDatabase`, {
      method: 'POST',
      body: new URLSearchParams({ type: 'mariadb', host: '127.0.0.1', port: '3306', name: 'test', user: 'root' }),
    });
    expect(form.status).to.equal(400);
    expect(await form.json()).to.include({ success: false, manualCommand: 'npm install mariadb@3', code: 'DB_DRIVER_MISSING' });

    const sqlite = await fetch(`${url}/api/setup/test-db`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'sqlite', database: 'cms.sqlite' }),
    });
    expect(sqlite.status, 'the installed driver still works').to.equal(200);
  });
});
