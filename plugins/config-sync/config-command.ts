/**
 * `cms config export|plan|apply` (issue 39, "A CLI for operators"): configuration promotion from the command line,
 * on an installation's data folder or database without its HTTP server (kernel/cli.ts boots the kernel on a free
 * loopback port). A configuration file is a bundle, as GET /api/config/bundle downloads it; plan and apply read it as
 * POST /api/config/bundle receives one (the same checks), then plan and apply through the data-operation engine like
 * POST /api/config/plan and /apply. Apply shows the plan, then asks for `yes` on a terminal (`--yes` for scripts);
 * the engine's audit entry of the apply carries `details.via: 'cli'`.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CliCommand } from '../../kernel/sdk.js';
import { assertNotBlocked, cliIdentity, confirmChange, parseCommandArgs, planText } from '../../lib/cli/operator-kit.js';
import type { DataOpsEngine, PlanView, SafetyMode } from '../data-ops/public.js';
import { BUNDLE_MAX_BYTES, BundleError, type ConfigSyncService } from './config-sync-service.js';
import { RESOURCE_TYPES, type ResourceType } from './resources.js';

const HELP = `
Subcommands:
  export [FILE] [--types LIST] [--tenant ID]
      Writes the configuration (locales, components, collection schemas, roles and their permissions, themes, public
      settings, the default dashboard layout) as one JSON bundle to FILE, or to standard output. Never private settings.
  plan FILE [--mode MODE] [--types LIST] [--tenant ID]
      What applying FILE would change, resource by resource; changes nothing.
  apply FILE [--mode MODE] [--types LIST] [--tenant ID] [--yes]
      Shows the plan, asks "yes" on the terminal, then applies it (in one transaction). --yes skips the question
      (needed when standard input is not a terminal).

--mode: merge (default: create and update, delete nothing), add (create only), mirror or replace (also delete
what FILE does not have). --types: a comma-separated list of ${RESOURCE_TYPES.join(', ')} (default: every type this
installation has). --tenant defaults to the default tenant. --json prints the answer as JSON. The exit code is 1
with a message in words when anything fails or is refused.

Examples:
  cms config export staging-config.json
  cms config plan staging-config.json --mode mirror
  cms config apply staging-config.json --yes --json
`;

type Kernel = Parameters<CliCommand['run']>[0]['kernel'];
type Print = (data: unknown, text: string) => void;

const OPTIONS = {
  types: { type: 'string' },
  tenant: { type: 'string', default: 'default' },
  mode: { type: 'string', default: 'merge' },
  yes: { type: 'boolean', short: 'y' },
} as const;
type Values = ReturnType<typeof parseCommandArgs<typeof OPTIONS>>['values'];
const MODES: SafetyMode[] = ['add', 'merge', 'mirror', 'replace'];

function typesOf(values: Values): ResourceType[] | undefined {
  if (values.types === undefined) return undefined;
  const types = values.types
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const unknown = types.filter((t) => !RESOURCE_TYPES.includes(t as ResourceType));
  if (!types.length || unknown.length)
    throw new Error(
      `--types takes a comma-separated list of ${RESOURCE_TYPES.join(', ')}${unknown.length ? ` (not: ${unknown.join(', ')})` : ''}`,
    );
  return types as ResourceType[];
}

async function exportBundle(kernel: Kernel, values: Values, file: string | undefined, json: boolean, out: (t: string) => void) {
  const service = kernel.container.resolve<ConfigSyncService>('configSync');
  const asked = typesOf(values);
  const missing = (asked ?? []).filter((t) => !service.types().includes(t));
  if (missing.length) throw new Error(`Resource types not available on this installation: ${missing.join(', ')}`);
  const bundle = await service.bundle(values.tenant!, asked ?? service.types());
  const text = `${JSON.stringify(bundle, null, 2)}\n`;
  if (file === undefined) return out(text);
  const path = resolve(file);
  await writeFile(path, text);
  const counts = Object.fromEntries(RESOURCE_TYPES.map((t) => [t, bundle.files.filter((f) => f.type === t).length]));
  const summary = RESOURCE_TYPES.filter((t) => counts[t]).map((t) => `${counts[t]} ${t}`);
  out(
    json
      ? `${JSON.stringify({ file: path, files: bundle.files.length, counts }, null, 2)}\n`
      : `Configuration written to ${path}: ${bundle.files.length} resource(s) (${summary.join(', ') || 'none'}).\n`,
  );
}

/** Reads FILE as POST /api/config/bundle receives a bundle (the same limit and checks); its upload id. */
async function receive(kernel: Kernel, tenantId: string, file: string) {
  const path = resolve(file);
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) throw new Error(`No configuration file '${file}' (cms config export FILE writes one)`);
  if (info.size > BUNDLE_MAX_BYTES) throw new Error(`'${file}' is larger than 16 MiB, the limit of a configuration bundle`);
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch {
    throw new Error(`'${file}' is not valid JSON (cms config export writes a configuration file)`);
  }
  try {
    return await kernel.container.resolve<ConfigSyncService>('configSync').storeUpload(tenantId, null, value, info.size);
  } catch (err) {
    if (err instanceof BundleError) throw new Error(`'${file}' is not a configuration bundle: ${err.message}`);
    throw err;
  }
}

async function planOf(kernel: Kernel, values: Values, file: string | undefined): Promise<{ plan: PlanView; problems: string[] }> {
  if (!file) throw new Error('A configuration file is needed (cms config export FILE writes one)');
  if (!MODES.includes(values.mode as SafetyMode)) throw new Error(`--mode must be one of ${MODES.join(', ')}`);
  const types = typesOf(values);
  const upload = await receive(kernel, values.tenant!, file);
  const engine = kernel.container.resolve<DataOpsEngine>('dataOps');
  const input = { uploadId: upload.uploadId, ...(types ? { types } : {}) };
  const plan = await engine.plan('config', input, values.mode as SafetyMode, cliIdentity(values.tenant!));
  return { plan, problems: upload.problems.map((p) => `${p.file}: ${p.problem}`) };
}

const problemsText = (problems: string[]) => problems.map((p) => `Problem in the file: ${p}\n`).join('');

async function apply(kernel: Kernel, values: Values, file: string | undefined, json: boolean, print: Print): Promise<void> {
  const { plan, problems } = await planOf(kernel, values, file);
  if (!json) print(null, `${problemsText(problems)}${planText(plan)}`);
  assertNotBlocked(plan);
  const s = plan.summary;
  if (!s.created && !s.updated && !s.deleted) return print({ plan, result: null }, 'The configuration already matches the file.\n');
  await confirmChange(`apply ${file} to the configuration`, values.yes);
  const identity = cliIdentity(values.tenant!);
  const engine = kernel.container.resolve<DataOpsEngine>('dataOps');
  const answer = await engine.apply('config', { planId: plan.planId, planHash: plan.planHash, confirmed: true }, identity, {
    inline: true,
  });
  if (answer.status !== 200) throw new Error('The apply was queued instead of run');
  const result = answer.data;
  if (result.outcome !== 'success' && result.outcome !== 'partial')
    throw new Error(`The apply failed (${result.outcome}): ${result.error?.message ?? 'see the log'}. The configuration is as before.`);
  const r = result.summary;
  const differences = result.verify && !result.verify.ok ? `Verify found differences: ${result.verify.discrepancies.join('; ')}\n` : '';
  print(
    { plan, result },
    `Applied (${result.outcome}): ${r.created} created, ${r.updated} updated, ${r.deleted} deleted, ${r.failed} failed.\n${differences}`,
  );
}

export const configCommand: CliCommand = {
  name: 'config',
  usage: 'export|plan|apply [FILE] [options] [--json]',
  summary: 'Export the configuration to a file, or plan and apply one, on this installation (boots, then stops)',
  help: HELP,
  async run({ kernel, json, args, out }) {
    const { positionals, values } = parseCommandArgs('config', args, OPTIONS);
    const [sub, file, extra] = positionals;
    const print: Print = (data, text) => {
      if (!json) out(text);
      else if (data !== null) out(`${JSON.stringify(data, null, 2)}\n`);
    };
    if (extra !== undefined) throw new Error(`Unexpected argument '${extra}' (cms config --help lists the options)`);
    if (sub === 'export') return exportBundle(kernel, values, file, json, out);
    if (sub === 'apply') return apply(kernel, values, file, json, print);
    if (sub !== 'plan') throw new Error(`Unknown subcommand '${sub ?? ''}': use export, plan or apply`);
    const { plan, problems } = await planOf(kernel, values, file);
    print({ plan, problems }, `${problemsText(problems)}${planText(plan)}`);
  },
};
