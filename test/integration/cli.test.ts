import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { expect } from 'chai';
import { PROJECT_ROOT } from '../../kernel/version.js';
import { tempDir, useCleanup, writePlugin } from '../helpers/kernel.js';
import { CLI, childEnv, project, runCli } from '../helpers/cli-run.js';

const HELLO_PLUGIN = join(PROJECT_ROOT, 'examples', 'hello-plugin');

describe('cli: cms plugins', function () {
  this.timeout(60000);
  const cleanup = useCleanup();
  let hello: { cwd: string; env: NodeJS.ProcessEnv };
  before(() => {
    hello = project({ plugins: { paths: [HELLO_PLUGIN] } }, cleanup);
  });

  it('plugins list --json lists the built-in plugins and hello, enabled, with provides', async () => {
    const { code, stdout, stderr } = await runCli(['plugins', 'list', '--json'], hello.cwd, hello.env);
    expect(code, stderr).to.equal(0);
    const rows = JSON.parse(stdout) as Array<Record<string, any>>;
    const ids = rows.map((r) => r.id);
    expect(ids).to.include.members(['health', 'system', 'openapi', 'hello']);
    for (const id of ['health', 'system', 'openapi', 'hello']) {
      const row = rows.find((r) => r.id === id)!;
      expect(row.enabled, id).to.equal(true);
      expect(row.provides, id).to.be.an('object');
    }
    const helloRow = rows.find((r) => r.id === 'hello')!;
    expect(helloRow).to.include({ version: '0.1.0', phase: 'core', source: 'path', dir: HELLO_PLUGIN });
    expect(helloRow.provides).to.deep.equal({ healthChecks: ['hello'] });
    expect(helloRow.namespaces).to.deep.equal(['hello']);
    expect(rows.find((r) => r.id === 'system')!.source).to.equal('builtin');
    // Boot order: setup-phase plugins come before hello (core).
    expect(ids.indexOf('health')).to.be.lessThan(ids.indexOf('hello'));
    // Manifests only: no state or boot time without --boot.
    expect(helloRow).not.to.have.property('state');
    expect(helloRow).not.to.have.property('bootMs');
  });

  it('plugins list --json shows a disabled plugin with enabled false', async () => {
    const p = project({ plugins: { paths: [HELLO_PLUGIN], disabled: ['hello'] } }, cleanup);
    const { code, stdout, stderr } = await runCli(['plugins', 'list', '--json'], p.cwd, p.env);
    expect(code, stderr).to.equal(0);
    const rows = JSON.parse(stdout) as Array<Record<string, any>>;
    expect(rows.find((r) => r.id === 'hello')).to.include({ enabled: false });
    expect(rows.find((r) => r.id === 'health')).to.include({ enabled: true });
  });

  it('plugins describe hello prints that plugin', async () => {
    const { code, stdout, stderr } = await runCli(['plugins', 'describe', 'hello'], hello.cwd, hello.env);
    expect(code, stderr).to.equal(0);
    const row = JSON.parse(stdout) as Record<string, any>;
    expect(row).to.include({ id: 'hello', name: 'Hello (example third-party plugin)', version: '0.1.0', enabled: true, dir: HELLO_PLUGIN });
    expect(row.provides).to.deep.equal({ healthChecks: ['hello'] });
  });

  it('plugins describe nope exits 1 with a message', async () => {
    const { code, stdout, stderr } = await runCli(['plugins', 'describe', 'nope'], hello.cwd, hello.env);
    expect(code).to.equal(1);
    expect(stderr).to.contain("'nope'");
    expect(stdout).to.equal('');
  });

  it('plugins list prints a table with a header row', async () => {
    const { code, stdout, stderr } = await runCli(['plugins', 'list'], hello.cwd, hello.env);
    expect(code, stderr).to.equal(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).to.match(/^ID\s+VERSION\s+ENABLED\s+PHASE\s+STATE\s+BOOT\s+REQUIRES\s+PROVIDES$/);
    const helloLine = lines.find((l) => l.startsWith('hello '));
    expect(helloLine).to.be.a('string');
    expect(helloLine).to.contain('0.1.0');
    expect(helloLine).to.contain('enabled');
    expect(helloLine).to.contain('healthChecks: hello');
    expect(lines.filter((l) => /^(health|system|openapi) /.test(l))).to.have.length(3);
    // Columns line up: each row's VERSION column starts where the header's does.
    const versionAt = lines[0]!.indexOf('VERSION');
    expect(helloLine!.indexOf('0.1.0')).to.equal(versionAt);
  });

  it('an unknown command prints the usage and exits 1', async () => {
    const { code, stderr } = await runCli(['plugins', 'frobnicate'], hello.cwd, hello.env);
    expect(code).to.equal(1);
    expect(stderr).to.contain('Usage');
  });

  it('a dependency cycle makes the command exit 1 with the loader message', async () => {
    const root = tempDir('cms-cli-plugins-');
    cleanup.push(root);
    const a = writePlugin(root, { id: 'cyc-a', requires: ['cyc-b'] });
    const b = writePlugin(root, { id: 'cyc-b', requires: ['cyc-a'] });
    const p = project({ plugins: { paths: [a, b] } }, cleanup);
    const { code, stdout, stderr } = await runCli(['plugins', 'list', '--json'], p.cwd, p.env);
    expect(code).to.equal(1);
    expect(stderr).to.contain('cycle');
    expect(stderr).to.contain('cyc-a -> cyc-b -> cyc-a');
    expect(stdout).to.equal('');
  });

  it('a missing dependency makes the command exit 1 naming both plugins', async () => {
    const root = tempDir('cms-cli-plugins-');
    cleanup.push(root);
    const lonely = writePlugin(root, { id: 'lonely', requires: ['partner'] });
    const p = project({ plugins: { paths: [lonely] } }, cleanup);
    const { code, stderr } = await runCli(['plugins', 'list'], p.cwd, p.env);
    expect(code).to.equal(1);
    expect(stderr).to.contain("Plugin 'lonely' requires 'partner', which is not installed");
  });

  it('a bad config makes the command exit 1 naming the key', async () => {
    const { code, stderr } = await runCli(['plugins', 'list'], hello.cwd, { ...hello.env, PORT: 'abc' });
    expect(code).to.equal(1);
    expect(stderr).to.contain('PORT');
  });

  it('plugins list --boot --json includes state and bootMs for each plugin', async () => {
    const { code, stdout, stderr } = await runCli(['plugins', 'list', '--boot', '--json'], hello.cwd, hello.env);
    expect(code, stderr).to.equal(0);
    const rows = JSON.parse(stdout) as Array<Record<string, any>>;
    expect(rows.map((r) => r.id)).to.include.members(['health', 'system', 'openapi', 'hello']);
    for (const row of rows) {
      expect(row.state, row.id).to.equal('booted');
      expect(row.bootMs, row.id).to.be.a('number').and.to.be.at.least(0);
      expect(row.enabled, row.id).to.equal(true);
    }
    expect(rows.find((r) => r.id === 'hello')!.containerKeys).to.deep.equal(['greeter']);
  });

  it('plugins list --boot --json keeps stdout pure JSON when the kernel logs a warning', async () => {
    const p = project({ plugins: { paths: [HELLO_PLUGIN], disabled: ['ghost-plugin'] } }, cleanup);
    const { code, stdout, stderr } = await runCli(['plugins', 'list', '--boot', '--json'], p.cwd, p.env);
    expect(code, stderr).to.equal(0);
    const rows = JSON.parse(stdout) as Array<Record<string, any>>;
    expect(rows.find((r) => r.id === 'hello')).to.include({ state: 'booted' });
    expect(stderr).to.contain('ghost-plugin');
  });

  it('plugins describe hello --boot reports its boot state', async () => {
    const { code, stdout, stderr } = await runCli(['plugins', 'describe', 'hello', '--boot'], hello.cwd, hello.env);
    expect(code, stderr).to.equal(0);
    const row = JSON.parse(stdout) as Record<string, any>;
    expect(row).to.include({ id: 'hello', state: 'booted' });
    expect(row.bootMs).to.be.a('number');
  });
});

describe('cli: cms start', function () {
  this.timeout(60000);
  const cleanup: string[] = [];
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const dir of cleanup.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  interface Started {
    child: ChildProcess;
    url: string;
    output: () => string;
    exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  }

  /** Starts `cli.js start` on port 0 and waits (bounded) for the line with its URL. */
  async function startCli(extraEnv: Record<string, string> = {}): Promise<Started> {
    const cwd = tempDir('cms-cli-start-');
    cleanup.push(cwd);
    mkdirSync(join(cwd, 'data'));
    writeFileSync(join(cwd, 'cms.config.json'), JSON.stringify({ plugins: { paths: [HELLO_PLUGIN] }, pool: { maxThreads: 1 } }));
    const child = spawn(process.execPath, [CLI, 'start'], {
      cwd,
      // A fresh instance redirects to /setup until set up: complete it headlessly, as an operator would.
      env: childEnv(join(cwd, 'data'), {
        PORT: '0',
        CMS_SETUP_ADMIN_EMAIL: 'admin@example.com',
        CMS_SETUP_ADMIN_PASSWORD: 'a long enough password',
        ...extraEnv,
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`no 'CMS listening on' line within 20 s; output:\n${out}`)), 20000);
      const check = () => {
        const m = /CMS listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(out);
        if (m && Number(m[2]) > 0) done(null, m[1]);
      };
      const onExit = () => done(new Error(`the process exited before listening; output:\n${out}`));
      function done(err: Error | null, value?: string) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        child.off('exit', onExit);
        if (err) reject(err);
        else resolve(value!);
      }
      child.stdout!.on('data', check);
      child.once('exit', onExit);
      check();
    });
    return { child, url, output: () => out, exited };
  }

  /** Waits for the exit, bounded: a process that does not stop by itself fails the test. */
  async function exitWithin(started: Started, ms: number) {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
    const result = await Promise.race([started.exited, timeout]);
    clearTimeout(timer);
    if (result === 'timeout') expect.fail(`the process did not exit within ${ms} ms after the signal; output:\n${started.output()}`);
    return result;
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`serves GET /api/health on the printed URL and exits 0 by itself on ${signal}`, async () => {
      const started = await startCli();
      const health = await fetch(`${started.url}/api/health`);
      expect(health.status).to.equal(200);
      const body = (await health.json()) as { data: { status: string } };
      expect(body.data.status).to.equal('ok');
      const hello = await fetch(`${started.url}/api/hello/ada`);
      expect(((await hello.json()) as any).data.message).to.equal('Hello, ada!');

      started.child.kill(signal);
      const { code, signal: killedBy } = await exitWithin(started, 20000);
      expect(killedBy, started.output()).to.equal(null);
      expect(code, started.output()).to.equal(0);
    });
  }

  /** Waits (bounded) until the output holds `pattern`. */
  async function printed(started: Started, pattern: RegExp): Promise<RegExpExecArray> {
    for (let i = 0; i < 100; i++) {
      const m = pattern.exec(started.output());
      if (m) return m;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return expect.fail(`no line matching ${String(pattern)} within 5 s; output:\n${started.output()}`);
  }

  it('tells a new user where to go: the setup wizard on a fresh data folder, the admin UI once set up', async () => {
    const fresh = await startCli({ CMS_SETUP_ADMIN_EMAIL: '', CMS_SETUP_ADMIN_PASSWORD: '' });
    const setupLine = await printed(fresh, /Open (http:\/\/127\.0\.0\.1:\d+)\/setup in a browser to finish setup\./);
    expect(setupLine[1]).to.equal(fresh.url);
    expect((await fetch(`${fresh.url}/setup`)).status).to.equal(200);
    fresh.child.kill('SIGTERM');
    await exitWithin(fresh, 20000);

    const ready = await startCli();
    const adminLine = await printed(ready, /Admin UI: (http:\/\/127\.0\.0\.1:\d+)\/admin\//);
    expect(adminLine[1]).to.equal(ready.url);
    expect(ready.output()).to.not.contain('finish setup');
    ready.child.kill('SIGTERM');
    await exitWithin(ready, 20000);
  });

  it('exits 0 on SIGTERM while a client holds a keep-alive connection open', async () => {
    const started = await startCli();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(`${started.url}/api/health`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end();
      });
      expect(status).to.equal(200);
      started.child.kill('SIGTERM');
      const { code } = await exitWithin(started, 20000);
      expect(code, started.output()).to.equal(0);
    } finally {
      agent.destroy();
    }
  });

  it('a bad config makes start exit 1 with the message', async () => {
    const cwd = tempDir('cms-cli-start-');
    cleanup.push(cwd);
    writeFileSync(join(cwd, 'cms.config.json'), JSON.stringify({ db: { type: 'oracle' } }));
    const result = await runCli(['start'], cwd, childEnv(join(cwd, 'data'), { PORT: '0' }));
    expect(result.code).to.equal(1);
    expect(result.stderr).to.contain('db.type');
    expect(result.stderr).to.contain('mariadb');
  });

  it('a plugin that fails to load makes start exit 1 with "Boot failed"', async () => {
    const root = tempDir('cms-cli-plugins-');
    cleanup.push(root);
    const broken = writePlugin(root, { id: 'broken' }, 'export const nothing = 1;\n');
    const cwd = tempDir('cms-cli-start-');
    cleanup.push(cwd);
    writeFileSync(join(cwd, 'cms.config.json'), JSON.stringify({ plugins: { paths: [broken] } }));
    const result = await runCli(['start'], cwd, childEnv(join(cwd, 'data'), { PORT: '0', LOG_LEVEL: 'silent' }));
    expect(result.code).to.equal(1);
    expect(result.stderr).to.contain('Boot failed');
    expect(result.stderr).to.contain("'broken'");
  });
});

describe('cli: commands contributed by plugins (the cliCommands registry)', function () {
  this.timeout(60000);
  const cleanup = useCleanup();

  function greeterPlugin(): string {
    const root = tempDir('cms-cli-plugins-');
    cleanup.push(root);
    return writePlugin(
      root,
      { id: 'greeter', provides: { cliCommands: ['greet'] } },
      `export default {
  register({ registries }) {
    registries.cliCommands.add({ name: 'greet', usage: '[name]', summary: 'greets', async run({ json, args, out }) {
      out(json ? JSON.stringify({ hello: args[0] ?? 'world' }) + '\\n' : 'Hello, ' + (args[0] ?? 'world') + '!\\n');
    } });
  },
};
`,
    );
  }

  it("runs a third-party plugin's command (found in its manifest), lists it in the usage, and refuses it when the plugin is disabled", async () => {
    const dir = greeterPlugin();
    const on = project({ plugins: { paths: [dir], disabled: ['setup'] } }, cleanup);
    const plain = await runCli(['greet', 'Ada'], on.cwd, on.env);
    expect(plain, plain.stderr).to.include({ code: 0, stdout: 'Hello, Ada!\n' });
    const json = await runCli(['greet', '--json'], on.cwd, on.env);
    expect(JSON.parse(json.stdout)).to.deep.equal({ hello: 'world' });
    const help = await runCli(['--help'], on.cwd, on.env);
    expect(help.stdout).to.match(/cms greet\s+\(plugin greeter\)/);
    expect(help.stdout).to.match(/cms license\s+\(plugin dashboard\)/);
    const off = project({ plugins: { paths: [dir], disabled: ['setup', 'greeter'] } }, cleanup);
    const refused = await runCli(['greet'], off.cwd, off.env);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/'cms greet' comes from the plugin 'greeter', which is disabled/);
    const unknown = await runCli(['nope'], on.cwd, on.env);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.match(/Usage:/);
  });
});
