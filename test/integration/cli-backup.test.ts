import { expect } from 'chai';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as tar from 'tar';
import { cliInstallation, type CliInstallation } from '../helpers/cli-installation.js';
import { tempDir, useCleanup } from '../helpers/kernel.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';

/**
 * Issue 39, "A CLI for operators": `cms backup create|list|restore` on an installation's data folder (SQLite) or
 * database (MariaDB) without its HTTP server, run as an operator does (the compiled CLI in a child process). An entry
 * deleted after a backup is back after the restore; a restore without --yes and without a terminal changes nothing;
 * a downloaded archive restores; a passphrase comes from standard input and never shows.
 */
for (const variant of DB_VARIANTS) {
  describe(`cli: cms backup (${variant.name})`, function () {
    this.timeout(240000);
    const cleanup = useCleanup();
    let site: CliInstallation;
    before(async function () {
      requireVariant(this, variant);
      site = await cliInstallation(variant, cleanup);
    });
    after(async () => site?.drop());
    const titles = (items: Array<{ title: string }>) => items.map((e) => e.title).sort();

    it('--help says the subcommands; a bad subcommand, flag or target exits 1 with a message in words', async function () {
      const help = await site.cms(['backup', '--help']);
      expect(help.code, help.stderr).to.equal(0);
      expect(help.stdout)
        .to.contain('restore <backup id | FILE.svelty-backup.tar.gz>')
        .and.contain('--passphrase-stdin')
        .and.contain('--yes');
      const bad = await site.cms(['backup', 'frobnicate']);
      expect(bad.code).to.equal(1);
      expect(bad.stderr).to.contain("Unknown subcommand 'frobnicate': use create, list or restore");
      const flag = await site.cms(['backup', 'list', '--colour']);
      expect(flag.code).to.equal(1);
      expect(flag.stderr).to.contain("Unknown option '--colour'").and.contain('cms backup --help');
      const none = await site.cms(['backup', 'restore']);
      expect(none.code).to.equal(1);
      expect(none.stderr).to.contain('cms backup restore needs a backup id');
      const missing = await site.cms(['backup', 'restore', 'no-such-file.tar.gz', '--yes']);
      expect(missing.code).to.equal(1);
      expect(missing.stderr).to.contain("'no-such-file.tar.gz' is neither a backup id");
      const both = await site.cms(['backup', 'create', '--passphrase-stdin', '--unencrypted'], 'a passphrase');
      expect(both.code).to.equal(1);
      expect(both.stderr).to.contain('do not give --unencrypted');
      expect(JSON.parse((await site.cms(['backup', 'list', '--json'])).stdout).backups).to.deep.equal([]);
    });

    it('restores an entry deleted after the backup; without --yes and a terminal nothing changes', async function () {
      let server = await site.serve();
      let lost: string;
      try {
        await server.api('POST', '/api/collections', { name: 'notes', fields: [{ name: 'title', type: 'text' }] });
        await server.api('POST', '/api/collections/notes', { title: 'Keep' });
        lost = (await server.api('POST', '/api/collections/notes', { title: 'Lost' }))._id;
      } finally {
        await server.stop();
      }
      const made = await site.cms(['backup', 'create', '--json']);
      expect(made.code, made.stderr).to.equal(0);
      const { backup, folder } = JSON.parse(made.stdout);
      expect(backup).to.include({ encryption: 'installation', entries: 2 });
      expect(existsSync(join(folder, 'manifest.json'))).to.equal(true);
      const list = await site.cms(['backup', 'list']);
      expect(list.stdout).to.contain(backup.backupId).and.contain('1 backup(s)');
      server = await site.serve();
      try {
        await server.api('DELETE', `/api/collections/notes/${lost}`);
        expect(titles((await server.api('GET', '/api/collections/notes')).items)).to.deep.equal(['Keep']);
        // Standard input is a pipe, not a terminal: the plan is shown, the restore refused.
        const refused = await site.cms(['backup', 'restore', backup.backupId]);
        expect(refused.code).to.equal(1);
        expect(refused.stdout).to.contain(`Restoring backup ${backup.backupId}`).and.contain('Plan (replace, risk destructive)');
        expect(refused.stderr).to.contain('Nothing was changed').and.contain('Pass --yes');
        expect(titles((await server.api('GET', '/api/collections/notes')).items)).to.deep.equal(['Keep']);
      } finally {
        await server.stop();
      }
      const restored = await site.cms(['backup', 'restore', backup.backupId, '--yes', '--json']);
      expect(restored.code, restored.stderr).to.equal(0);
      const answer = JSON.parse(restored.stdout);
      expect(answer.result.outcome).to.equal('success');
      expect(answer.result.verify.ok).to.equal(true);
      server = await site.serve();
      try {
        expect(titles((await server.api('GET', '/api/collections/notes')).items)).to.deep.equal(['Keep', 'Lost']);
      } finally {
        await server.stop();
      }
      const audit = await site.audit(['backup.created', 'backup.apply']);
      expect(audit.map((a) => a.action)).to.deep.equal(['backup.created', 'backup.apply']);
      expect(audit.every((a) => a.details?.via === 'cli')).to.equal(true);
      expect(audit[0]!.details).to.include({ backupId: backup.backupId, encryption: 'installation' });
    });

    it('restores a downloaded archive and a passphrase backup; the passphrase never shows, a wrong one is refused', async function () {
      const passphrase = 'correct horse battery staple';
      const made = await site.cms(['backup', 'create', '--passphrase-stdin'], `${passphrase}\n`);
      expect(made.code, made.stderr).to.equal(0);
      expect(made.stdout).to.contain('encrypted with the passphrase');
      expect(made.stdout + made.stderr).not.to.contain(passphrase);
      const backupId = /Backup (\S+) written to (\S+)/.exec(made.stdout)![1]!;
      const folder = /Backup (\S+) written to (\S+)/.exec(made.stdout)![2]!;
      // The archive GET /api/backups/:id/download gives, kept elsewhere; the backup itself gone from this installation.
      const archive = join(tempDir('cms-cli-archive-'), `${backupId}.svelty-backup.tar.gz`);
      cleanup.push(join(archive, '..'));
      await tar.c({ gzip: true, cwd: join(folder, '..'), portable: true, file: archive }, [`${backupId}.svelty-backup`]);
      rmSync(folder, { recursive: true, force: true });
      const wrong = await site.cms(['backup', 'restore', archive, '--passphrase-stdin', '--yes'], 'not the passphrase');
      expect(wrong.code).to.equal(1);
      expect(wrong.stderr.toLowerCase()).to.contain('passphrase');
      // Refused: the imported archive is not left behind.
      expect(JSON.parse((await site.cms(['backup', 'list', '--json'])).stdout).backups.map((b: any) => b.backupId)).not.to.include(
        backupId,
      );
      const restored = await site.cms(['backup', 'restore', archive, '--passphrase-stdin', '--yes'], passphrase);
      expect(restored.code, restored.stderr).to.equal(0);
      expect(restored.stdout).to.contain(`Backup ${backupId} restored (success)`).and.contain('Verified');
      expect(restored.stdout + restored.stderr).not.to.contain(passphrase);
      const listed = JSON.parse((await site.cms(['backup', 'list', '--json'])).stdout).backups;
      expect(listed.find((b: any) => b.backupId === backupId)).to.include({ encryption: 'passphrase' });
      const audit = await site.audit(['backup.created', 'backup.apply']);
      expect(JSON.stringify(audit)).not.to.contain(passphrase);
    });
  });
}
