import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checksumOf } from '../../plugins/config-sync/sync-types.js';
import { cliInstallation, TERMINAL_AVAILABLE, type CliInstallation } from '../helpers/cli-installation.js';
import { tempDir, useCleanup } from '../helpers/kernel.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';

/**
 * Issue 39, "A CLI for operators": `cms config export|plan|apply` on an installation's data folder (SQLite) or
 * database (MariaDB) without its HTTP server, run as an operator does (the compiled CLI in a child process): the
 * configuration exported to a file, the file changed, the plan naming the difference, the apply (after --yes) making
 * it, a tampered file refused. Mistakes exit 1 with a message in words.
 */
interface BundleFile {
  uuid: string;
  type: string;
  name: string;
  externalId: string | null;
  checksum: string;
  data: Record<string, any>;
}

for (const variant of DB_VARIANTS) {
  describe(`cli: cms config (${variant.name})`, function () {
    this.timeout(240000);
    const cleanup = useCleanup();
    let site: CliInstallation;
    let dir: string;
    before(async function () {
      requireVariant(this, variant);
      site = await cliInstallation(variant, cleanup);
      dir = tempDir('cms-cli-config-');
      cleanup.push(dir);
    });
    after(async () => site?.drop());
    const bundleAt = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { format: string; files: BundleFile[] };
    const role = (files: BundleFile[], name: string) => files.find((f) => f.type === 'role' && f.name === name);

    it('--help says the subcommands; a bad subcommand, flag, mode or file exits 1 with a message in words', async function () {
      const help = await site.cms(['config', '--help']);
      expect(help.code, help.stderr).to.equal(0);
      expect(help.stdout).to.contain('export [FILE]').and.contain('plan FILE').and.contain('apply FILE').and.contain('--yes');
      const cases: Array<[string[], string]> = [
        [['config', 'frobnicate'], "Unknown subcommand 'frobnicate': use export, plan or apply"],
        [['config', 'export', '--colour'], "Unknown option '--colour'"],
        [['config', 'plan'], 'A configuration file is needed'],
        [['config', 'plan', join(dir, 'missing.json')], 'No configuration file'],
        [['config', 'plan', join(dir, 'x.json'), '--mode', 'overwrite'], '--mode must be one of add, merge, mirror, replace'],
        [['config', 'export', '--types', 'role,wizard'], '--types takes a comma-separated list'],
      ];
      for (const [args, words] of cases) {
        const answer = await site.cms(args);
        expect(answer.code, args.join(' ')).to.equal(1);
        expect(answer.stderr, args.join(' ')).to.contain(words);
      }
      writeFileSync(join(dir, 'not-json.json'), 'role: editor');
      const notJson = await site.cms(['config', 'plan', join(dir, 'not-json.json')]);
      expect(notJson.code).to.equal(1);
      expect(notJson.stderr).to.contain('is not valid JSON');
      writeFileSync(join(dir, 'not-bundle.json'), '{"roles": []}');
      const notBundle = await site.cms(['config', 'apply', join(dir, 'not-bundle.json'), '--yes']);
      expect(notBundle.code).to.equal(1);
      expect(notBundle.stderr).to.contain('is not a configuration bundle');
    });

    it('exports, plans the difference of a changed file, refuses without --yes, applies with it', async function () {
      const printed = await site.cms(['config', 'export']);
      expect(printed.code, printed.stderr).to.equal(0);
      expect(JSON.parse(printed.stdout).format).to.equal('cms-config-bundle');
      const file = join(dir, 'config.json');
      const written = await site.cms(['config', 'export', file, '--json']);
      expect(written.code, written.stderr).to.equal(0);
      const answer = JSON.parse(written.stdout);
      expect(answer).to.include({ file });
      expect(answer.counts.role).to.be.greaterThan(0);
      // The operator changes the file: the editors may read backups, and a new role.
      const bundle = bundleAt(file);
      const editor = role(bundle.files, 'editor')!;
      expect(editor.data.permissions).not.to.include('backup:read');
      editor.data.permissions = [...editor.data.permissions, 'backup:read'].sort();
      editor.checksum = checksumOf(editor.data);
      const reviewer = { description: 'Reads and comments', permissions: ['content:read'] };
      bundle.files.push({
        uuid: '6f3b2c1a-0d4e-4f5a-9b8c-7d6e5f4a3b2c',
        type: 'role',
        name: 'reviewer',
        externalId: 'reviewer',
        checksum: checksumOf(reviewer),
        data: reviewer,
      });
      writeFileSync(file, JSON.stringify(bundle));
      const plan = await site.cms(['config', 'plan', file]);
      expect(plan.code, plan.stderr).to.equal(0);
      expect(plan.stdout).to.contain('1 to create, 1 to update, 0 to delete');
      expect(plan.stdout)
        .to.contain('create role reviewer: permissions +content:read')
        .and.contain('update role editor: permissions +backup:read');
      const planJson = JSON.parse((await site.cms(['config', 'plan', file, '--json'])).stdout);
      expect(planJson.plan.summary).to.include({ created: 1, updated: 1, deleted: 0 });
      // Standard input is not a terminal: the plan is shown, nothing applied.
      const refused = await site.cms(['config', 'apply', file]);
      expect(refused.code).to.equal(1);
      expect(refused.stdout).to.contain('create role reviewer');
      expect(refused.stderr).to.contain('Nothing was changed').and.contain('Pass --yes');
      expect(role(JSON.parse((await site.cms(['config', 'export'])).stdout).files, 'reviewer')).to.equal(undefined);
      const applied = await site.cms(['config', 'apply', file, '--yes', '--json']);
      expect(applied.code, applied.stderr).to.equal(0);
      const result = JSON.parse(applied.stdout).result;
      expect(result.outcome).to.equal('success');
      expect(result.summary).to.include({ created: 1, updated: 1 });
      const after = JSON.parse((await site.cms(['config', 'export'])).stdout).files as BundleFile[];
      expect(role(after, 'reviewer')!.data.permissions).to.deep.equal(['content:read']);
      expect(role(after, 'editor')!.data.permissions).to.include('backup:read');
      const again = await site.cms(['config', 'apply', file]);
      expect(again.code, again.stderr).to.equal(0);
      expect(again.stdout).to.contain('Nothing to change.').and.contain('already matches the file');
      const audit = await site.audit(['config.apply']);
      expect(audit).to.have.length(1);
      expect(audit[0]!.details).to.deep.equal({ via: 'cli' });
    });

    it('refuses a tampered file (its checksum) and a mirror that would delete, without --yes', async function () {
      const file = join(dir, 'tampered.json');
      expect((await site.cms(['config', 'export', file])).code).to.equal(0);
      const bundle = bundleAt(file);
      role(bundle.files, 'reviewer')!.data.permissions.push('backup:create');
      writeFileSync(file, JSON.stringify(bundle));
      const tampered = await site.cms(['config', 'apply', file, '--yes']);
      expect(tampered.code).to.equal(1);
      expect(tampered.stdout).to.contain('Problem in the file: role/reviewer.json');
      expect(tampered.stderr).to.contain('The plan cannot be applied').and.contain('Nothing was changed');
      const exported = JSON.parse((await site.cms(['config', 'export'])).stdout).files as BundleFile[];
      expect(role(exported, 'reviewer')!.data.permissions).to.deep.equal(['content:read']);
      // Without the reviewer in the file, mirror deletes it: planned, but not applied without --yes.
      const mirror = join(dir, 'mirror.json');
      writeFileSync(mirror, JSON.stringify({ ...bundle, files: exported.filter((f) => f.name !== 'reviewer') }));
      const plan = await site.cms(['config', 'apply', mirror, '--mode', 'mirror']);
      expect(plan.code).to.equal(1);
      expect(plan.stdout).to.contain('delete role reviewer').and.contain('risk destructive');
      const still = JSON.parse((await site.cms(['config', 'export'])).stdout).files as BundleFile[];
      expect(role(still, 'reviewer')).not.to.equal(undefined);
    });

    it('on a terminal asks before applying: an answer other than yes changes nothing, yes applies', async function () {
      if (!TERMINAL_AVAILABLE) {
        console.log('      util-linux script is not installed: the terminal test is skipped');
        this.skip();
      }
      const file = join(dir, 'terminal.json');
      expect((await site.cms(['config', 'export', file])).code).to.equal(0);
      const bundle = bundleAt(file);
      const reviewer = role(bundle.files, 'reviewer')!;
      reviewer.data.description = 'Reads, comments and approves';
      reviewer.checksum = checksumOf(reviewer.data);
      writeFileSync(file, JSON.stringify(bundle));
      const description = async () => role(JSON.parse((await site.cms(['config', 'export'])).stdout).files, 'reviewer')!.data.description;
      const no = await site.onTerminal(['config', 'apply', file], 'no\n');
      expect(no.code, no.stdout).to.equal(1);
      expect(no.stdout).to.contain('update role reviewer').and.contain('Type yes to apply').and.contain('the answer was not yes');
      expect(await description()).to.equal('Reads and comments');
      const yes = await site.onTerminal(['config', 'apply', file], 'yes\n');
      expect(yes.code, yes.stdout).to.equal(0);
      expect(yes.stdout).to.contain('Applied (success): 0 created, 1 updated');
      expect(await description()).to.equal('Reads, comments and approves');
    });
  });
}
