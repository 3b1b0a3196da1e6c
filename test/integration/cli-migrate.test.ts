import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { cliProject, type CliProject } from '../helpers/cli-project.js';
import { existsSync } from 'node:fs';
import { CLI, runCli, runFile } from '../helpers/cli-run.js';
import { useCleanup } from '../helpers/kernel.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';

/**
 * Issue 39, "A CLI for operators": `cms migrate status|plan|apply` on an installation's data folder (SQLite) or
 * database (MariaDB), run as an operator does (the compiled CLI in a child process). status and plan change nothing
 * (a boot would apply the migrations: these do not boot); apply runs exactly what plan listed, only with --yes when
 * not on a terminal. An older installation (a migration's table and ledger row gone) shows that one pending.
 */
for (const variant of DB_VARIANTS) {
  describe(`cli: cms migrate (${variant.name})`, function () {
    this.timeout(180000);
    const cleanup = useCleanup();
    let p: CliProject;
    before(async function () {
      requireVariant(this, variant);
      p = await cliProject(variant, cleanup);
    });
    after(async () => p?.drop());
    const cms = (args: string[]) => runCli(args, p.cwd, p.env);
    /** The CLI on a pseudo-terminal (util-linux `script`), answering `input`; null (said) where there is no `script`. */
    const onTerminal = async (args: string[], input: string) => {
      if (!existsSync('/usr/bin/script')) return (void console.log('      no /usr/bin/script: the terminal prompt is not tested'), null);
      const command = [process.execPath, CLI, ...args].map((a) => `'${a}'`).join(' ');
      return runFile('/usr/bin/script', ['-qec', command, '/dev/null'], p.cwd, p.env, input);
    };
    const ledgerTables = async () => {
      const db = p.connect();
      try {
        return await db.getQueryInterface().tableExists('cms_migrations');
      } finally {
        await db.close();
      }
    };

    it('--help says the subcommands; a bad subcommand or flag exits 1 with a message in words', async function () {
      const help = await cms(['migrate', '--help']);
      expect(help.code, help.stderr).to.equal(0);
      expect(help.stdout).to.contain('status|plan|apply').and.contain('--yes');
      const bad = await cms(['migrate', 'undo']);
      expect(bad.code).to.equal(1);
      expect(bad.stderr).to.contain("Unknown subcommand 'undo'");
      const flag = await cms(['migrate', 'status', '--force']);
      expect(flag.code).to.equal(1);
      expect(flag.stderr).to.contain("Unknown option '--force'").and.contain('cms migrate --help');
      expect((await cms(['--help'])).stdout)
        .to.contain('cms migrate status|plan|apply')
        .and.contain('cms doctor');
    });

    it('a new database: status and plan show everything pending and change nothing; apply needs --yes, then runs the plan', async function () {
      const status = await cms(['migrate', 'status', '--json']);
      expect(status.code, status.stderr).to.equal(0);
      const before = JSON.parse(status.stdout);
      expect(before.pending).to.be.greaterThan(20);
      const kernel = before.plugins.find((r: { plugin: string }) => r.plugin === 'kernel');
      expect(kernel.applied).to.equal(0);
      expect(kernel.pending).to.include('kernel/0001-jobs');
      expect(before.plugins.map((r: { plugin: string }) => r.plugin)).to.include.members(['auth', 'content', 'setup']);
      const plan = JSON.parse((await cms(['migrate', 'plan', '--json'])).stdout);
      expect(plan.pending).to.have.length(before.pending);
      expect(plan.pending[0]).to.deep.equal({ name: 'kernel/0001-jobs', plugin: 'kernel' });
      const text = await cms(['migrate', 'plan']);
      expect(text.stdout).to.contain('apply would run, in this order:').and.contain('1. kernel/0001-jobs');
      // Nothing was applied: not even the ledger exists.
      expect(await ledgerTables()).to.equal(false);
      const refused = await cms(['migrate', 'apply']);
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.contain('without confirmation: not on a terminal; pass --yes');
      expect(await ledgerTables()).to.equal(false);

      const apply = await cms(['migrate', 'apply', '--yes', '--json']);
      expect(apply.code, apply.stderr).to.equal(0);
      expect(JSON.parse(apply.stdout).applied).to.deep.equal(plan.pending.map((m: { name: string }) => m.name));
      const after = JSON.parse((await cms(['migrate', 'status', '--json'])).stdout);
      expect(after.pending).to.equal(0);
      expect(after.changed).to.deep.equal([]);
      expect((await cms(['migrate', 'status'])).stdout).to.contain('Up to date: no migration pending.');
      expect((await cms(['migrate', 'apply', '--yes'])).stdout).to.contain('Nothing to apply');
    });

    it('an older installation (a migration not run yet) shows it pending; apply runs it; a changed one stops plan', async function () {
      const db = p.connect();
      try {
        // As if this installation predates the update-check plugin's table.
        await db.getQueryInterface().dropTable('update_check_state');
        await db.query("DELETE FROM cms_migrations WHERE name = 'update-check/0001-update-check-state'");
        const status = await cms(['migrate', 'status']);
        expect(status.code, status.stderr).to.equal(0);
        expect(status.stdout)
          .to.match(/update-check\s+0 applied, 1 pending/)
          .and.contain('1 pending');
        const plan = JSON.parse((await cms(['migrate', 'plan', '--json'])).stdout);
        expect(plan.pending).to.deep.equal([{ name: 'update-check/0001-update-check-state', plugin: 'update-check' }]);
        // On a terminal apply asks: anything but yes applies nothing.
        const no = await onTerminal(['migrate', 'apply'], 'n\n');
        if (no) {
          expect(no.stdout).to.contain('Apply 1 migration(s) to this database now?').and.contain('Not applied');
          expect(JSON.parse((await cms(['migrate', 'status', '--json'])).stdout).pending).to.equal(1);
        }
        const apply = (await onTerminal(['migrate', 'apply'], 'yes\n')) ?? (await cms(['migrate', 'apply', '--yes']));
        expect(apply.code, apply.stderr).to.equal(0);
        expect(apply.stdout).to.contain('Applied 1 migration(s):').and.contain('update-check/0001-update-check-state');
        expect(await db.getQueryInterface().tableExists('update_check_state')).to.equal(true);
        expect(JSON.parse((await cms(['migrate', 'status', '--json'])).stdout).pending).to.equal(0);

        // A migration whose code no longer matches what ran: reported, and nothing can be applied.
        const [row] = await db.query<{ checksum: string }>(
          "SELECT checksum FROM cms_migrations WHERE name = 'setup/0001-state-and-settings'",
          {
            type: QueryTypes.SELECT,
          },
        );
        expect(row, 'the setup migration is in the ledger').to.not.equal(undefined);
        await db.query("UPDATE cms_migrations SET checksum = ? WHERE name = 'setup/0001-state-and-settings'", {
          replacements: ['0'.repeat(64)],
        });
        const changed = await cms(['migrate', 'status', '--json']);
        expect(changed.code, changed.stderr).to.equal(0);
        expect(JSON.parse(changed.stdout).changed).to.deep.equal(['setup/0001-state-and-settings']);
        const stopped = await cms(['migrate', 'plan']);
        expect(stopped.code).to.equal(1);
        expect(stopped.stderr).to.contain('changed after they ran: setup/0001-state-and-settings');
        await db.query("UPDATE cms_migrations SET checksum = ? WHERE name = 'setup/0001-state-and-settings'", {
          replacements: [row!.checksum],
        });
      } finally {
        await db.close();
      }
    });

    it('an unreachable database: exit 1 with the reason in words', async function () {
      const down = await runCli(['migrate', 'status'], p.cwd, { ...p.env, DB_TYPE: 'mariadb', DB_URL: 'mariadb://cms@127.0.0.1:1/cms' });
      expect(down.code).to.equal(1);
      expect(down.stderr).to.contain('ECONNREFUSED');
      expect(down.stdout).to.equal('');
    });
  });
}
