import { expect } from 'chai';
import { QueryTypes, Sequelize } from 'sequelize';
import { startCliInstance } from '../helpers/cli-instance.js';
import { project, runCli } from '../helpers/cli-run.js';
import { useCleanup } from '../helpers/kernel.js';
import { createMariaDbDatabase, DB_VARIANTS, requireVariant } from '../helpers/services.js';

/**
 * Issue 39, "A CLI for operators": `cms users list|create|reset-password` on an installation's data folder (SQLite) or
 * database (MariaDB), without its HTTP server, run as an operator does (the compiled CLI in a child process), also
 * while the installation runs: a password reset there signs the user in with the new password only, and ends the
 * sessions it had. Mistakes exit 1 with a message in words.
 */
for (const variant of DB_VARIANTS) {
  describe(`cli: cms users (${variant.name})`, function () {
    this.timeout(180000);
    const cleanup = useCleanup();
    let p: { cwd: string; env: NodeJS.ProcessEnv };
    let drop: (() => Promise<void>) | undefined;
    before(async function () {
      requireVariant(this, variant);
      let extra: Record<string, string> = { DB_TYPE: 'sqlite', REDIS_URL: '' };
      if (variant.name === 'mariadb') {
        const db = await createMariaDbDatabase();
        drop = db.drop;
        extra = { DB_TYPE: 'mariadb', DB_URL: db.url, REDIS_URL: '' };
      }
      p = project({}, cleanup, { ...extra, LOG_LEVEL: 'warn' });
    });
    after(async () => drop?.());
    const cms = (args: string[], input?: string) => runCli(args, p.cwd, p.env, input);

    it('--help says the subcommands; a bad subcommand or flag exits 1 with a message in words', async function () {
      const help = await cms(['users', '--help']);
      expect(help.code, help.stderr).to.equal(0);
      expect(help.stdout).to.contain('reset-password --email EMAIL').and.contain('--password-stdin');
      const bad = await cms(['users', 'frobnicate']);
      expect(bad.code).to.equal(1);
      expect(bad.stderr).to.contain("Unknown subcommand 'frobnicate'");
      const flag = await cms(['users', 'list', '--colour']);
      expect(flag.code).to.equal(1);
      expect(flag.stderr).to.contain("Unknown option '--colour'").and.contain('cms users --help');
      const limit = await cms(['users', 'list', '--limit', '5000']);
      expect(limit.code).to.equal(1);
      expect(limit.stderr).to.contain('--limit must be a whole number from 1 to 200');
    });

    it('creates users (a generated password printed once, or one from standard input), lists them, refuses mistakes', async function () {
      const made = await cms(['users', 'create', '--email', 'Ada@Example.com', '--role', 'editor', '--json']);
      expect(made.code, made.stderr).to.equal(0);
      const created = JSON.parse(made.stdout);
      expect(created.user).to.include({ email: 'ada@example.com', role: 'editor' });
      expect(created.password).to.be.a('string').with.length.greaterThan(15);
      const piped = await cms(
        ['users', 'create', '--email', 'bob@example.com', '--role', 'viewer', '--password-stdin'],
        'bobs long password\n',
      );
      expect(piped.code, piped.stderr).to.equal(0);
      expect(piped.stdout).to.contain('Created bob@example.com (viewer).').and.not.contain('Password');
      const list = await cms(['users', 'list', '--json']);
      expect(list.code, list.stderr).to.equal(0);
      const listed = JSON.parse(list.stdout);
      expect(listed.total).to.equal(2);
      expect(listed.items.map((u: { email: string }) => u.email).sort()).to.deep.equal(['ada@example.com', 'bob@example.com']);
      expect(JSON.stringify(listed)).not.to.contain('password');
      const text = await cms(['users', 'list', '--search', 'bob']);
      expect(text.stdout).to.contain('bob@example.com  viewer').and.contain('1 user(s) in all');
      // Mistakes: nothing is created.
      const again = await cms(['users', 'create', '--email', 'ada@example.com', '--role', 'editor']);
      expect(again.code).to.equal(1);
      expect(again.stderr.toLowerCase()).to.contain('already');
      const role = await cms(['users', 'create', '--email', 'cy@example.com', '--role', 'wizard']);
      expect(role.code).to.equal(1);
      expect(role.stderr).to.contain("Unknown role 'wizard'");
      const short = await cms(['users', 'create', '--email', 'cy@example.com', '--role', 'editor', '--password-stdin'], 'short');
      expect(short.code).to.equal(1);
      expect(short.stderr).to.match(/password/i);
      const empty = await cms(['users', 'create', '--email', 'cy@example.com', '--role', 'editor', '--password-stdin']);
      expect(empty.code).to.equal(1);
      expect(empty.stderr).to.contain('standard input was empty');
      expect(JSON.parse((await cms(['users', 'list', '--json'])).stdout).total).to.equal(2);
    });

    it('resets a password: the new one works, the old one does not, sessions end, the change is audited', async function () {
      const reset = await cms(['users', 'reset-password', '--email', 'bob@example.com', '--json']);
      expect(reset.code, reset.stderr).to.equal(0);
      const answer = JSON.parse(reset.stdout);
      expect(answer).to.include({ email: 'bob@example.com', sessionsEnded: 0 });
      expect(answer.password).to.be.a('string');
      // The installation running meanwhile (its own server process on the same data): Bob signs in there.
      const server = await startCliInstance({
        CMS_DATA_DIR: String(p.env.CMS_DATA_DIR),
        DB_TYPE: String(p.env.DB_TYPE),
        DB_URL: p.env.DB_URL ?? '',
      });
      try {
        const signIn = (password: string) =>
          fetch(`${server.url}/api/user/login`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email: 'bob@example.com', password }),
          });
        expect((await signIn(answer.password)).status).to.equal(200);
        const piped = await cms(['users', 'reset-password', '--email', 'bob@example.com', '--password-stdin'], 'a brand new password');
        expect(piped.code, piped.stderr).to.equal(0);
        expect(piped.stdout).to.contain('Password of bob@example.com reset; 1 session(s) ended.');
        // No Redis here: the running server is not told, and the operator is told so.
        expect(piped.stdout).to.contain('restart it so the ended sessions stop working there at once');
        expect((await signIn(answer.password)).status).to.equal(401);
        expect((await signIn('a brand new password')).status).to.equal(200);
      } finally {
        await server.stop();
      }
      const unknown = await cms(['users', 'reset-password', '--email', 'nobody@example.com']);
      expect(unknown.code).to.equal(1);
      expect(unknown.stderr).to.contain("No user 'nobody@example.com' in the tenant 'default'");
      // The stored hash checks the piped password, and the audit log names each change, without a secret.
      const sequelize =
        variant.name === 'mariadb'
          ? new Sequelize(String(p.env.DB_URL), { logging: false })
          : new Sequelize({ dialect: 'sqlite', storage: `${p.env.CMS_DATA_DIR}/cms.sqlite`, logging: false });
      try {
        const rows = await sequelize.query<{ action: string; message: string; details: string }>(
          "SELECT action, message, details FROM cms_audit_log WHERE action IN ('auth.user.created', 'auth.password.reset') ORDER BY id",
          { type: QueryTypes.SELECT },
        );
        expect(rows.map((r) => r.action)).to.deep.equal([
          'auth.user.created',
          'auth.user.created',
          'auth.password.reset',
          'auth.password.reset',
        ]);
        expect(rows[2]!.message).to.contain('from the command line');
        expect(rows.map((r) => r.details).join())
          .to.contain('"via":"cli"')
          .and.not.contain('brand new');
      } finally {
        await sequelize.close();
      }
    });
  });
}
