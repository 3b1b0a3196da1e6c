/**
 * What plugin commands of the `cms` CLI share (kernel/cli.ts runs them; docs/operations/cli.md): their flags parsed
 * with a message in words, a secret read from standard input (never the command line), a data-operation plan shown
 * as text, and the confirmation a destructive command asks on a terminal (`--yes` for scripts).
 */
import { createInterface } from 'node:readline/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** The identity a command acts as: the installation's administrator (whoever runs `cms` holds its data), no user. */
export function cliIdentity(tenantId = 'default') {
  return {
    kind: 'user' as const,
    userId: null,
    role: 'admin',
    permissions: [] as string[],
    tenantId,
    meta: { system: true, via: 'cli' },
  };
}

/** parseArgs, with the command's `--help` named when a flag is unknown or misused. */
export function parseCommandArgs<O extends NonNullable<ParseArgsConfig['options']>>(command: string, args: string[], options: O) {
  try {
    return parseArgs({ args, allowPositionals: true, strict: true, options: { ...options, help: { type: 'boolean', short: 'h' } } });
  } catch (err) {
    throw new Error(`${(err as Error).message} (cms ${command} --help lists the options)`);
  }
}

/** Standard input, whole, without its trailing newline; at most `max` bytes. `what` names it in messages. */
export async function readStdinSecret(what: string, max = 4096): Promise<string> {
  if (process.stdin.isTTY) throw new Error(`--${what}-stdin reads the ${what} from standard input: pipe it in`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > max) throw new Error(`The ${what} on standard input is longer than ${max.toLocaleString('en')} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (!text) throw new Error(`--${what}-stdin was given but standard input was empty`);
  return text;
}

/**
 * The operator's go-ahead for a change: `--yes` gives it; otherwise a terminal on standard input is asked to type
 * `yes` (the question on standard error). Without a terminal and without `--yes` nothing is changed and the
 * command fails (exit 1), saying to pass `--yes`.
 */
export async function confirmChange(what: string, yes: boolean | undefined): Promise<void> {
  if (yes) return;
  if (!process.stdin.isTTY)
    throw new Error(
      `Nothing was changed: standard input is not a terminal, so the question cannot be asked. Pass --yes to ${what} without it`,
    );
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    const answer = await rl.question(`Type yes to ${what}: `);
    if (answer.trim().toLowerCase() !== 'yes') throw new Error('Nothing was changed: the answer was not yes');
  } finally {
    rl.close();
  }
}

/** A data-operation plan (plugins/data-ops PlanView), as much as the text needs. */
export interface PlanShape {
  planId: string;
  mode: string;
  risk: string;
  summary: { created: number; updated: number; deleted: number; skipped: number; failed: number };
  operations: Array<{
    action: string;
    type: string;
    target: string;
    count: number;
    changes?: Record<string, { added: unknown[]; removed: unknown[] }>;
  }>;
  warnings: Array<{ message: string; item?: string }>;
  blockedReasons: string[];
}

const changesText = (changes: PlanShape['operations'][number]['changes']) =>
  Object.entries(changes ?? {})
    .flatMap(([aspect, c]) => [
      ...(c.added.length ? [`${aspect} +${c.added.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', +')}`] : []),
      ...(c.removed.length ? [`${aspect} -${c.removed.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', -')}`] : []),
    ])
    .join('; ');

/** The plan in words: counts, risk, each operation that changes something (at most `limit`), warnings, why it is blocked. */
export function planText(plan: PlanShape, limit = 200): string {
  const s = plan.summary;
  const lines = [
    `Plan (${plan.mode}, risk ${plan.risk}): ${s.created} to create, ${s.updated} to update, ${s.deleted} to delete${s.skipped ? `, ${s.skipped} unchanged` : ''}`,
  ];
  const changing = plan.operations.filter((o) => o.action !== 'skip');
  for (const o of changing.slice(0, limit)) {
    const detail = changesText(o.changes);
    lines.push(`  ${o.action.padEnd(6)} ${o.type} ${o.target}${o.count > 1 ? ` (${o.count})` : ''}${detail ? `: ${detail}` : ''}`);
  }
  if (changing.length > limit) lines.push(`  ... and ${changing.length - limit} more (--json lists them all)`);
  if (!changing.length) lines.push('  Nothing to change.');
  for (const w of plan.warnings) lines.push(`Warning: ${w.message}${w.item ? ` (${w.item})` : ''}`);
  for (const b of plan.blockedReasons) lines.push(`Blocked: ${b}`);
  return `${lines.join('\n')}\n`;
}

/** A refusal of a plan that cannot run (its blocked reasons, in words). */
export function assertNotBlocked(plan: PlanShape): void {
  if (plan.blockedReasons.length) throw new Error(`The plan cannot be applied: ${plan.blockedReasons.join('; ')}. Nothing was changed.`);
}
