import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliProject, type CliProject } from '../helpers/cli-project.js';
import { runCli } from '../helpers/cli-run.js';
import { useCleanup } from '../helpers/kernel.js';
import { DB_VARIANTS, REDIS_URL, requireVariant } from '../helpers/services.js';

interface Check {
  id: string;
  status: 'ok' | 'warn' | 'fail';
  message: string;
  fix?: string;
}

/**
 * Issue 39, "A CLI for operators": `cms doctor` on an installation (SQLite or MariaDB), run as an operator does.
 * Each check says ok, warn or fail with what to fix; a failed one exits 1. The mistakes an operator makes: an
 * unreachable database or Redis, a cms.config.json that does not parse, a data folder that is a file, a media
 * folder that cannot be made; pending migrations are a warning, and the doctor does not apply them.
 */
for (const variant of DB_VARIANTS) {
  describe(`cli: cms doctor (${variant.name})`, function () {
    this.timeout(240000);
    const cleanup = useCleanup();
    let p: CliProject;
    before(async function () {
      requireVariant(this, variant);
      p = await cliProject(variant, cleanup);
    });
    after(async () => p?.drop());
    const doctor = async (env: NodeJS.ProcessEnv = {}, cwd = p.cwd) => {
      const run = await runCli(['doctor', '--json'], cwd, { ...p.env, ...env });
      const report = JSON.parse(run.stdout) as { ok: boolean; checks: Check[] };
      const byId = Object.fromEntries(report.checks.map((c) => [c.id, c]));
      return { ...run, report, byId };
    };

    it('--help lists the checks; an unknown flag exits 1 in words', async function () {
      const help = await runCli(['doctor', '--help'], p.cwd, p.env);
      expect(help.code, help.stderr).to.equal(0);
      expect(help.stdout).to.contain('data-folder').and.contain('migrations').and.contain('storage');
      const flag = await runCli(['doctor', '--fix'], p.cwd, p.env);
      expect(flag.code).to.equal(1);
      expect(flag.stderr).to.contain("Unknown option '--fix'").and.contain('cms doctor --help');
    });

    it('pending migrations are a warning (not applied by the doctor); once applied, every check is ok', async function () {
      if (variant.name === 'sqlite') {
        const fresh = await doctor();
        expect(fresh.code, fresh.stderr).to.equal(0);
        expect(fresh.byId.database!.status).to.equal('warn'); // no SQLite file yet: not created by the doctor
        expect((await runCli(['migrate', 'status', '--json'], p.cwd, p.env)).code).to.equal(0);
      }
      const pending = await doctor();
      expect(pending.code, pending.stderr).to.equal(0);
      expect(pending.byId.database!.status).to.equal('ok');
      expect(pending.byId.migrations).to.include({ status: 'warn' });
      expect(pending.byId.migrations!.fix).to.contain('cms migrate apply');
      expect(pending.byId.storage!.message).to.contain('Not checked');
      expect(JSON.parse((await runCli(['migrate', 'status', '--json'], p.cwd, p.env)).stdout).pending).to.be.greaterThan(0);

      expect((await runCli(['migrate', 'apply', '--yes'], p.cwd, p.env)).code).to.equal(0);
      // MariaDB keeps its data elsewhere; the data folder (media, temporary files) is made as a start makes it.
      mkdirSync(String(p.env.CMS_DATA_DIR), { recursive: true, mode: 0o700 });
      const healthy = await doctor();
      expect(healthy.code, healthy.stderr).to.equal(0);
      for (const id of ['node', 'config', 'data-folder', 'database', 'database-version', 'migrations', 'redis', 'storage'])
        expect(healthy.byId[id], id).to.include({ status: 'ok' });
      expect(healthy.byId.storage!.message).to.contain("media storage 'local' is writable");
      expect(healthy.byId['database-version']!.message).to.match(variant.name === 'sqlite' ? /^SQLite 3\./ : /^MariaDB 1\d\./);
      const text = await runCli(['doctor'], p.cwd, p.env);
      expect(text.code).to.equal(0);
      expect(text.stdout)
        .to.match(/OK\s+database\s/)
        .and.contain('0 fail');
    });

    it('an unreachable database fails with what to fix, and exit 1 (no crash)', async function () {
      const down = await doctor({ DB_TYPE: 'mariadb', DB_URL: 'mariadb://cms@127.0.0.1:1/cms' });
      expect(down.code).to.equal(1);
      expect(down.report.ok).to.equal(false);
      expect(down.byId.database).to.include({ status: 'fail' });
      expect(down.byId.database!.message).to.contain('ECONNREFUSED');
      expect(down.byId.database!.fix).to.contain('DB_URL');
      expect(down.byId.storage!.status).to.equal('warn');
      const text = await runCli(['doctor'], p.cwd, { ...p.env, DB_TYPE: 'mariadb', DB_URL: 'mariadb://cms@127.0.0.1:1/cms' });
      expect(text.code).to.equal(1);
      expect(text.stdout)
        .to.match(/FAIL\s+database/)
        .and.contain('fix: Check that the MariaDB server');
    });

    it('a media folder that cannot be made fails the storage check', async function () {
      writeFileSync(join(String(p.env.CMS_DATA_DIR), 'not-a-folder'), 'x');
      const blocked = await doctor({ MEDIA_FOLDER: 'not-a-folder' });
      expect(blocked.code).to.equal(1);
      expect(blocked.byId.storage).to.include({ status: 'fail' });
      expect(blocked.byId.storage!.fix).to.contain('MEDIA_FOLDER');
    });

    it('Redis: unreachable fails; a running one is ok', async function () {
      const down = await doctor({ REDIS_URL: 'redis://127.0.0.1:1' });
      expect(down.code).to.equal(1);
      expect(down.byId.redis).to.include({ status: 'fail' });
      expect(down.byId.redis!.fix).to.contain('REDIS_URL');
      if (!REDIS_URL) return console.log('      CMS_TEST_REDIS_URL is not set: the reachable Redis case is skipped');
      const up = await doctor({ REDIS_URL });
      expect(up.code, up.stderr).to.equal(0);
      expect(up.byId.redis).to.include({ status: 'ok' });
    });
  });
}

describe('cli: cms doctor (configuration and data folder)', function () {
  this.timeout(120000);
  const cleanup = useCleanup();

  it('a cms.config.json that does not parse fails the config check, exit 1', async function () {
    const p = await cliProject(DB_VARIANTS[0]!, cleanup);
    writeFileSync(join(p.cwd, 'cms.config.json'), '{ "port": 3000,');
    const run = await runCli(['doctor', '--json'], p.cwd, p.env);
    expect(run.code).to.equal(1);
    const config = (JSON.parse(run.stdout).checks as Check[]).find((c) => c.id === 'config')!;
    expect(config.status).to.equal('fail');
    expect(config.message).to.contain('is not valid JSON');
  });

  it('a data folder that is a file fails the data-folder check, exit 1', async function () {
    const p = await cliProject(DB_VARIANTS[0]!, cleanup);
    const file = join(p.cwd, 'data-file');
    writeFileSync(file, 'x');
    const run = await runCli(['doctor', '--json'], p.cwd, { ...p.env, CMS_DATA_DIR: file });
    expect(run.code).to.equal(1);
    const folder = (JSON.parse(run.stdout).checks as Check[]).find((c) => c.id === 'data-folder')!;
    expect(folder).to.include({ status: 'fail' });
    expect(folder.message).to.contain('is not a folder');
    expect(folder.fix).to.contain('CMS_DATA_DIR');
  });
});
