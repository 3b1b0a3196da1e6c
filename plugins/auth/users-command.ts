/**
 * `cms users list|create|reset-password` (issue 39, "A CLI for operators"): the users of an installation from its
 * data folder or database, without its HTTP server (the CLI boots the kernel on a free loopback port, kernel/cli.ts).
 * A password never goes on the command line (shell history, `ps`): it is read from standard input with
 * `--password-stdin`, or generated and printed once. Every change is audited with the actor `cli`.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { AuditLog, CliCommand } from '../../kernel/sdk.js';
import type { SessionsService } from './sessions-service.js';
import type { UsersService } from './users-service.js';

const HELP = `
Subcommands:
  list [--tenant ID] [--search TEXT] [--page N] [--limit N]
      One page of users, newest first (default page 1, 50 a page, at most 200).
  create --email EMAIL --role ROLE [--username NAME] [--tenant ID] [--password-stdin]
      A user with that role. Without --password-stdin a password is generated and printed once.
  reset-password --email EMAIL [--tenant ID] [--password-stdin]
      A new password (generated and printed once, or read from standard input); every session of the user ends.

--tenant defaults to the default tenant. --json prints the answer as JSON. The exit code is 1 with a message in
words when anything fails (an unknown role, an e-mail address already used, a password too short).

Examples:
  cms users create --email ada@example.com --role editor
  printf '%s' "$NEW_PASSWORD" | cms users reset-password --email ada@example.com --password-stdin --json
`;

type Kernel = Parameters<CliCommand['run']>[0]['kernel'];

/** Standard input, whole (a password piped in), without its trailing newline; bounded. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > 4096) throw new Error('The password on standard input is longer than 4,096 bytes');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

async function passwordOf(fromStdin: boolean | undefined): Promise<{ password: string; generated: boolean }> {
  if (!fromStdin) return { password: randomBytes(18).toString('base64url'), generated: true };
  const password = await readStdin();
  if (!password) throw new Error('--password-stdin was given but standard input was empty');
  return { password, generated: false };
}

/** An audit entry of a change made from the command line (no user acts: `details.via` says where it came from). */
async function audit(kernel: Kernel, tenantId: string, action: string, message: string, userId: string): Promise<void> {
  await kernel.container.resolve<AuditLog>('audit').append({
    domain: 'auth',
    operation: action.slice('auth.'.length),
    action,
    actor: { userId: null, tenantId },
    outcome: 'success',
    level: 'high',
    message,
    details: { via: 'cli', userId },
  });
}

function parsed(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      tenant: { type: 'string', default: 'default' },
      search: { type: 'string' },
      page: { type: 'string', default: '1' },
      limit: { type: 'string', default: '50' },
      email: { type: 'string' },
      role: { type: 'string' },
      username: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

const whole = (text: string, name: string, max: number) => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new Error(`--${name} must be a whole number from 1 to ${max}`);
  return n;
};

export const usersCommand: CliCommand = {
  name: 'users',
  usage: 'list|create|reset-password [options] [--json]',
  summary: 'List users, create one, or reset a password, on this installation (boots, then stops)',
  help: HELP,
  async run({ kernel, json, args, out }) {
    let options: ReturnType<typeof parsed>;
    try {
      options = parsed(args);
    } catch (err) {
      throw new Error(`${(err as Error).message} (cms users --help lists the options)`);
    }
    const { positionals, values } = options;
    const [sub] = positionals;
    const users = kernel.container.resolve<UsersService>('users');
    const tenantId = values.tenant!;
    const print = (data: unknown, text: string) => out(json ? `${JSON.stringify(data, null, 2)}\n` : text);
    if (sub === 'list') {
      const page = whole(values.page!, 'page', 100_000);
      const limit = whole(values.limit!, 'limit', 200);
      const listed = await users.list(tenantId, { page, limit, ...(values.search ? { search: values.search } : {}) });
      const rows = listed.items.map((u) => `${u.email}  ${u.role}${u.blocked ? '  (blocked)' : ''}`);
      return print(listed, `${rows.join('\n')}${rows.length ? '\n' : ''}${listed.total} user(s) in all, page ${page}\n`);
    }
    if (sub !== 'create' && sub !== 'reset-password')
      throw new Error(`Unknown subcommand '${sub ?? ''}': use list, create or reset-password`);
    if (!values.email) throw new Error(`cms users ${sub} needs --email`);
    if (sub === 'create') {
      if (!values.role) throw new Error('cms users create needs --role (cms roles are listed in the admin UI, Roles)');
      const { password, generated } = await passwordOf(values['password-stdin']);
      const user = await users.create({ email: values.email, password, role: values.role, username: values.username, tenantId });
      await audit(kernel, tenantId, 'auth.user.created', `User '${user.email}' created from the command line`, user._id);
      const data = { user, ...(generated ? { password } : {}) };
      return print(data, `Created ${user.email} (${user.role}).\n${generated ? `Password (shown once): ${password}\n` : ''}`);
    }
    const user = await users.findByEmail(values.email.trim().toLowerCase(), tenantId);
    if (!user) throw new Error(`No user '${values.email}' in the tenant '${tenantId}'`);
    const { password, generated } = await passwordOf(values['password-stdin']);
    await users.setPassword(user.id, password);
    const ended = await kernel.container.resolve<SessionsService>('sessions').revokeAllForUser(user.id);
    await audit(kernel, tenantId, 'auth.password.reset', `Password of '${user.email}' reset from the command line`, user.id);
    // Without Redis no event reaches a running server, which trusts a session it verified for up to 24 hours.
    const { redis } = kernel.container.resolve<{ redis: { url?: string; sentinels?: string[] } }>('config');
    const shared = Boolean(redis.url || redis.sentinels?.length);
    const warning =
      ended && !shared ? 'Without Redis a running server is not told: restart it so the ended sessions stop working there at once.' : '';
    const data = { email: user.email, sessionsEnded: ended, ...(generated ? { password } : {}), ...(warning ? { warning } : {}) };
    return print(
      data,
      `Password of ${user.email} reset; ${ended} session(s) ended.\n${generated ? `New password (shown once): ${password}\n` : ''}${warning ? `${warning}\n` : ''}`,
    );
  },
};
