/**
 * `cms migrate status|plan|apply` (issue 39, "A CLI for operators"): the database schema migrations of the kernel and
 * of the enabled plugins, on an installation's data folder or database, without its HTTP server. A kernel command,
 * not a plugin's: a plugin command runs after a full boot, and a boot applies every pending migration. Here the
 * kernel is only prepared (plugins registered, so their migrations are declared; none booted, no port) and its
 * database opened (Kernel.prepare, openDatabase): status and plan read the ledger (cms_migrations) and change
 * nothing; apply runs the pending ones through the runner a boot uses (same order, lock and checksums).
 */
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { cliKernel, printer } from './cli-kernel.js';
import { MigrationRunner, type MigrationStatus } from './db/migrations.js';
import type { Kernel } from './index.js';

export const MIGRATE_USAGE = `Usage: cms migrate status|plan|apply [--yes] [--json]

The database schema migrations of the kernel and the enabled plugins (the ledger table cms_migrations).
A start applies pending migrations by itself; these commands let an operator look first and apply them
at a chosen moment (after an update, before starting the new version).

Subcommands:
  status   Per plugin: how many migrations are applied, which are pending, which were changed after they ran.
           Changes nothing.
  plan     The pending migrations in the order apply (or the next start) runs them. Changes nothing.
  apply    Runs the pending migrations (asks for confirmation on a terminal; --yes for scripts, which
           are refused without it). Take a backup first.

--json prints the answer as JSON. The exit code is 1 with a message in words when the database cannot be
opened, a migration was changed after it ran (nothing can be applied until it is restored), or a migration fails.

Examples:
  cms migrate status
  cms migrate plan --json
  cms migrate apply --yes
`;

interface PluginSummary {
  plugin: string;
  applied: number;
  pending: string[];
  changed: string[];
}

/** The status per owner (the kernel, then the plugins in boot order). */
export function summarise(status: MigrationStatus): PluginSummary[] {
  const byOwner = new Map<string, PluginSummary>();
  for (const m of status.migrations) {
    const row = byOwner.get(m.owner) ?? { plugin: m.owner, applied: 0, pending: [], changed: [] };
    if (m.state === 'applied') row.applied += 1;
    else row[m.state].push(m.name);
    byOwner.set(m.owner, row);
  }
  return [...byOwner.values()];
}

function changedError(changed: string[]): Error {
  return new Error(
    `${changed.length} migration(s) changed after they ran: ${changed.join(', ')}. The installation's code does not match ` +
      'its database (a start stops too): put back the version of the code that ran them, or restore a backup made with this code',
  );
}

function printStatus(status: MigrationStatus, json: boolean): void {
  const plugins = summarise(status);
  const pending = status.migrations.filter((m) => m.state === 'pending').length;
  const changed = status.migrations.filter((m) => m.state === 'changed').map((m) => m.name);
  const lines = plugins.map(
    (p) =>
      `${p.plugin.padEnd(20)} ${String(p.applied).padStart(3)} applied` +
      `${p.pending.length ? `, ${p.pending.length} pending` : ''}${p.changed.length ? `, ${p.changed.length} CHANGED` : ''}`,
  );
  const verdict = changed.length
    ? `${changed.length} migration(s) changed after they ran: ${changed.join(', ')}\n`
    : pending
      ? `${pending} pending: 'cms migrate plan' lists them, 'cms migrate apply' runs them (a start would too).\n`
      : 'Up to date: no migration pending.\n';
  const extra = status.recordedOnly.length
    ? `${status.recordedOnly.length} ledger row(s) no enabled plugin declares (collection schema changes, disabled plugins).\n`
    : '';
  printer(json)({ pending, changed, plugins, recordedOnly: status.recordedOnly }, `${lines.join('\n')}\n${verdict}${extra}`);
}

/** Asks on a terminal; elsewhere (a script, a pipe) applying needs --yes. */
async function confirmed(count: number, yes: boolean | undefined): Promise<void> {
  if (yes) return;
  if (!process.stdin.isTTY || !process.stderr.isTTY)
    throw new Error(`Refusing to apply ${count} migration(s) without confirmation: not on a terminal; pass --yes`);
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`Apply ${count} migration(s) to this database now? Take a backup first. [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) throw new Error('Not applied: the answer was not yes');
  } finally {
    rl.close();
  }
}

async function planOrApply(kernel: Kernel, runner: MigrationRunner, sub: 'plan' | 'apply', json: boolean, yes?: boolean) {
  const status = await runner.status(kernel.migrations);
  const changed = status.migrations.filter((m) => m.state === 'changed').map((m) => m.name);
  if (changed.length) throw changedError(changed);
  const pending = status.migrations.filter((m) => m.state === 'pending').map(({ name, owner }) => ({ name, plugin: owner }));
  const print = printer(json);
  if (sub === 'plan') {
    const list = pending.map((m, i) => `${String(i + 1).padStart(3)}. ${m.name}\n`).join('');
    return print({ pending }, pending.length ? `apply would run, in this order:\n${list}` : 'Nothing to apply: up to date.\n');
  }
  if (!pending.length) return print({ applied: [] }, 'Nothing to apply: up to date.\n');
  await confirmed(pending.length, yes);
  const applied = await runner.run(kernel.migrations);
  print({ applied }, `Applied ${applied.length} migration(s):\n${applied.map((n) => `  ${n}\n`).join('')}`);
}

function parsed(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: { yes: { type: 'boolean', short: 'y' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    throw new Error(`${(err as Error).message} (cms migrate --help lists the options)`);
  }
}

/** `cms migrate ...`; a refusal or failure is thrown (kernel/cli.ts prints it, exit 1). */
export async function migrateCommand(args: string[], json: boolean): Promise<void> {
  const { positionals, values } = parsed(args);
  if (values.help) return void process.stdout.write(MIGRATE_USAGE);
  const [sub, extra] = positionals;
  if (sub !== 'status' && sub !== 'plan' && sub !== 'apply')
    throw new Error(`Unknown subcommand '${sub ?? ''}': use status, plan or apply (cms migrate --help)`);
  if (extra !== undefined) throw new Error(`Unexpected argument '${extra}' (cms migrate --help)`);
  const kernel = cliKernel();
  try {
    await kernel.prepare();
    await kernel.openDatabase();
    const runner = new MigrationRunner(kernel.sequelize, kernel.lock, kernel.logger);
    if (sub === 'status') printStatus(await runner.status(kernel.migrations), json);
    else await planOrApply(kernel, runner, sub, json, values.yes);
  } finally {
    await kernel.close();
  }
}
