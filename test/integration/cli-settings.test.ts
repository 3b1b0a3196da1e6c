import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { startCliInstance } from '../helpers/cli-instance.js';
import { cliProject, type CliProject } from '../helpers/cli-project.js';
import { runCli } from '../helpers/cli-run.js';
import { useCleanup } from '../helpers/kernel.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';

interface Setting {
  key: string;
  value: unknown;
  secret: boolean;
  isSet?: boolean;
  default?: unknown;
}

/**
 * Issue 39, "A CLI for operators": `cms settings get|set` on an installation's data folder (SQLite) or database
 * (MariaDB), run as an operator does, through the checks of PATCH /api/settings: an unknown key or a value that does
 * not fit exits 1 in words and changes nothing; secrets are read from standard input and never shown; each change
 * is audited with `details.via: 'cli'`; the API of the running installation answers the new values.
 */
for (const variant of DB_VARIANTS) {
  describe(`cli: cms settings (${variant.name})`, function () {
    this.timeout(240000);
    const cleanup = useCleanup();
    let p: CliProject;
    before(async function () {
      requireVariant(this, variant);
      p = await cliProject(variant, cleanup);
    });
    after(async () => p?.drop());
    const cms = (args: string[], input?: string) => runCli(args, p.cwd, p.env, input);
    const getOne = async (key: string) => JSON.parse((await cms(['settings', 'get', key, '--json'])).stdout) as Setting;

    it('--help says the subcommands; a bad subcommand or flag exits 1 in words', async function () {
      const help = await cms(['settings', '--help']);
      expect(help.code, help.stderr).to.equal(0);
      expect(help.stdout).to.contain('set KEY VALUE').and.contain('--value-stdin').and.contain('--tenant');
      const bad = await cms(['settings', 'delete']);
      expect(bad.code).to.equal(1);
      expect(bad.stderr).to.contain("Unknown subcommand 'delete'");
      const flag = await cms(['settings', 'get', '--all']);
      expect(flag.code).to.equal(1);
      expect(flag.stderr).to.contain("Unknown option '--all'").and.contain('cms settings --help');
    });

    it('gets every setting or one; sets values of each type; refuses unknown keys and values that do not fit', async function () {
      const all = await cms(['settings', 'get', '--json']);
      expect(all.code, all.stderr).to.equal(0);
      const keys = (JSON.parse(all.stdout) as Setting[]).map((s) => s.key);
      expect(keys).to.include.members(['SITE_NAME', 'SESSION_TTL_HOURS', 'MEDIA_SECRET_ACCESS_KEY']);
      expect((await cms(['settings', 'get', 'SITE_NAME'])).stdout).to.equal('My CMS\n');

      const set = await cms(['settings', 'set', 'SITE_NAME', 'Our site']);
      expect(set.code, set.stderr).to.equal(0);
      expect(set.stdout).to.contain('SITE_NAME = Our site.');
      expect((await getOne('SITE_NAME')).value).to.equal('Our site');
      expect((await cms(['settings', 'set', 'SITE_NAME', 'Our site'])).stdout).to.contain('nothing changed');
      expect((await cms(['settings', 'set', 'DEMO_MODE', 'true'])).code).to.equal(0);
      expect((await getOne('DEMO_MODE')).value).to.equal(true);
      expect((await cms(['settings', 'set', 'SESSION_MAX_PER_USER', '3', '--json'])).code).to.equal(0);
      expect((await getOne('SESSION_MAX_PER_USER')).value).to.equal(3);

      const long = await cms(['settings', 'set', 'SITE_NAME', 'x'.repeat(65)]);
      expect(long.code).to.equal(1);
      expect(long.stderr).to.contain('SITE_NAME: Site name: at most 64 characters');
      const word = await cms(['settings', 'set', 'SESSION_MAX_PER_USER', 'many']);
      expect(word.code).to.equal(1);
      expect(word.stderr).to.contain('must be a whole number');
      const choice = await cms(['settings', 'set', 'AUDIT_IP_MODE', 'sometimes']);
      expect(choice.code).to.equal(1);
      expect(choice.stderr).to.contain('must be one of: hash, full, none');
      const unknown = await cms(['settings', 'set', 'NO_SUCH_SETTING', '1']);
      expect(unknown.code).to.equal(1);
      expect(unknown.stderr).to.contain('NO_SUCH_SETTING is not a setting this installation knows');
      expect((await cms(['settings', 'get', 'NO_SUCH_SETTING'])).code).to.equal(1);
      const tenant = await cms(['settings', 'get', '--tenant', 'elsewhere']);
      expect(tenant.code).to.equal(1);
      expect(tenant.stderr).to.contain("No tenant 'elsewhere'");
      // Nothing of the refused changes was saved.
      expect((await getOne('SITE_NAME')).value).to.equal('Our site');
      expect((await getOne('SESSION_MAX_PER_USER')).value).to.equal(3);
    });

    it('a secret comes from standard input, is shown masked, and never reaches the audit log; the API sees the changes', async function () {
      const inline = await cms(['settings', 'set', 'MEDIA_SECRET_ACCESS_KEY', 'top-secret-value']);
      expect(inline.code).to.equal(1);
      expect(inline.stderr).to.contain('is a secret: pass it on standard input with --value-stdin');
      const piped = await cms(['settings', 'set', 'MEDIA_SECRET_ACCESS_KEY', '--value-stdin'], 'top-secret-value\n');
      expect(piped.code, piped.stderr).to.equal(0);
      expect(piped.stdout).to.contain('(secret: set)').and.not.contain('top-secret-value');
      const secret = await getOne('MEDIA_SECRET_ACCESS_KEY');
      expect(secret).to.include({ value: null, secret: true, isSet: true });
      const listed = await cms(['settings', 'get']);
      expect(listed.stdout).to.contain('MEDIA_SECRET_ACCESS_KEY = (secret: set)').and.not.contain('top-secret-value');

      const db = p.connect();
      try {
        const rows = await db.query<{ action: string; message: string; details: string }>(
          "SELECT action, message, details FROM cms_audit_log WHERE action = 'settings.changed' ORDER BY id",
          { type: QueryTypes.SELECT },
        );
        expect(rows.map((r) => r.message)).to.have.length(4);
        expect(rows[0]!.message).to.contain('SITE_NAME').and.contain('from the command line');
        const details = rows.map((r) => (typeof r.details === 'string' ? r.details : JSON.stringify(r.details))).join();
        expect(details).to.contain('"via":"cli"').and.contain('"to":"Our site"').and.contain('"to":"(set)"');
        expect(details).not.to.contain('top-secret-value');
      } finally {
        await db.close();
      }

      // The installation, started on the same data, answers what the command line set.
      const server = await startCliInstance({
        CMS_DATA_DIR: String(p.env.CMS_DATA_DIR),
        DB_TYPE: String(p.env.DB_TYPE),
        DB_URL: p.env.DB_URL ?? '',
      });
      try {
        const cookie = await server.signIn();
        const res = await fetch(`${server.url}/api/settings`, { headers: { cookie } });
        expect(res.status).to.equal(200);
        const body = (await res.json()) as { data?: Setting[] } | Setting[];
        const list = Array.isArray(body) ? body : (body.data ?? []);
        expect(list.find((s) => s.key === 'SITE_NAME')?.value).to.equal('Our site');
        expect(list.find((s) => s.key === 'MEDIA_SECRET_ACCESS_KEY')).to.include({ value: null, isSet: true });
      } finally {
        await server.stop();
      }
    });
  });
}
