/**
 * `cms settings get [KEY] | set KEY VALUE` (issue 39, "A CLI for operators"): the System Settings of an installation
 * from its data folder or database, without its HTTP server, through what GET and PATCH /api/settings use
 * (settings-changes.ts): the same keys, validation, masking of secrets and audit entry (`details.via: 'cli'`). The
 * operator acts as an administrator of the tenant named with --tenant (default: the installation's), so another
 * tenant's command cannot change settings of the whole installation, as over the API. No sudo step: the operator
 * holds the machine. A secret's value is never taken from the command line (shell history, `ps`): --value-stdin.
 */
import { parseArgs } from 'node:util';
import { type AuditLog, type CliCommand, type Identity, INSTALLATION_TENANT, type SettingsService } from '../../kernel/sdk.js';
import type { TenantsService } from '../auth/public.js';
import { listSettings, validateChanges, writeChanges, type SettingView } from './settings-changes.js';
import type { SettingDefinition, SettingsRegistry } from './settings-registry.js';

const HELP = `
Subcommands:
  get [KEY] [--tenant ID]
      Every setting (or one) with its value; secrets are masked: (secret: set) or (secret: not set).
  set KEY VALUE [--tenant ID]
  set KEY --value-stdin [--tenant ID]
      Changes one setting, checked as the Settings page and PATCH /api/settings check it. VALUE is text for text
      settings; true/false, a number, or a JSON list (["a","b"]) or comma-separated items for the others; an empty
      VALUE clears a setting that may be empty. A secret is read from standard input (--value-stdin), never
      from the command line.

--tenant (default: the installation's tenant, 'default') picks whose settings: settings of the whole installation
(scope installation) are changed only from the installation's tenant. --json prints the answer as JSON. The exit
code is 1 with a message in words for an unknown key or a value that does not fit.

Examples:
  cms settings get SITE_NAME
  cms settings set SITE_NAME "Our site"
  printf '%s' "$SMTP_PASSWORD" | cms settings set SMTP_PASSWORD --value-stdin
`;

type Kernel = Parameters<CliCommand['run']>[0]['kernel'];

/** The operator: an administrator of the tenant (installation settings only in the installation's tenant). */
const operator = (tenantId: string): Identity => ({ kind: 'user', userId: null, role: 'admin', permissions: [], tenantId });

/** Standard input, whole, without its trailing newline; bounded (a setting is at most a few KB). */
async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += (chunk as Buffer).toString('utf8');
    if (text.length > 65536) throw new Error('The value on standard input is longer than 64 KB');
  }
  return text.replace(/\r?\n$/, '');
}

/** The command line's text as the setting's type expects it (the validation then says what does not fit). */
export function valueFromText(def: SettingDefinition, text: string): unknown {
  const trimmed = text.trim();
  if (def.nullable && trimmed === '') return null;
  if (def.type === 'boolean') return trimmed === 'true' ? true : trimmed === 'false' ? false : text;
  if (def.type === 'integer' || def.type === 'number') return trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : text;
  if (def.type === 'string-list') {
    if (trimmed.startsWith('[')) {
      try {
        return JSON.parse(trimmed) as unknown;
      } catch {
        throw new Error(`${def.key}: the value is not a JSON list (write ["a","b"], or a,b)`);
      }
    }
    return trimmed === '' ? [] : trimmed.split(',').map((item) => item.trim());
  }
  return text;
}

const shown = (s: SettingView) =>
  s.secret
    ? `(secret: ${s.isSet ? 'set' : 'not set'})`
    : s.value === null
      ? '(empty)'
      : typeof s.value === 'string'
        ? s.value
        : JSON.stringify(s.value);

async function checkTenant(kernel: Kernel, tenantId: string): Promise<void> {
  if (tenantId === INSTALLATION_TENANT) return;
  // The auth plugin's tenants (setup requires auth): an unknown one would get rows nobody reads.
  const tenants = kernel.container.resolve<TenantsService>('tenants');
  if (!(await tenants.list()).some((t) => t.id === tenantId)) throw new Error(`No tenant '${tenantId}' on this installation`);
}

function parsed(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        tenant: { type: 'string', default: INSTALLATION_TENANT },
        'value-stdin': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new Error(`${(err as Error).message} (cms settings --help lists the options)`);
  }
}

async function get(kernel: Kernel, identity: Identity, key: string | undefined, print: (data: unknown, text: string) => void) {
  const scope = {
    settings: kernel.container.resolve<SettingsService>('settings'),
    settingsCatalogue: kernel.container.resolve<SettingsRegistry>('settingsCatalogue'),
  };
  const all = await listSettings(scope, identity);
  if (!key) return print(all, all.map((s) => `${s.key} = ${shown(s)}\n`).join(''));
  const one = all.find((s) => s.key === key);
  if (!one) throw new Error(`${key} is not a setting this installation knows ('cms settings get' lists them)`);
  print(one, `${shown(one)}\n`);
}

async function set(kernel: Kernel, identity: Identity, positionals: string[], fromStdin: boolean | undefined) {
  const [, key, text, extra] = positionals;
  if (!key) throw new Error('cms settings set needs KEY and VALUE (cms settings --help)');
  const catalogue = kernel.container.resolve<SettingsRegistry>('settingsCatalogue');
  const def = catalogue.get(key);
  if (!def) throw new Error(`${key} is not a setting this installation knows ('cms settings get' lists them)`);
  if (extra !== undefined) throw new Error(`Unexpected argument '${extra}': quote a VALUE with spaces`);
  if (fromStdin && text !== undefined) throw new Error('Give the VALUE on the command line or --value-stdin, not both');
  if (def.secret && !fromStdin)
    throw new Error(`${key} is a secret: pass it on standard input with --value-stdin (a command line stays in the shell's history)`);
  if (!fromStdin && text === undefined) throw new Error(`cms settings set ${key} needs a VALUE (or --value-stdin)`);
  const raw = fromStdin ? await readStdin() : text!;
  const checked = validateChanges(catalogue, identity, { [key]: valueFromText(def, raw) });
  const { changed, audit } = await writeChanges(kernel.container.resolve<SettingsService>('settings'), identity, checked);
  if (audit)
    await kernel.container.resolve<AuditLog>('audit').append({
      domain: 'settings',
      operation: 'changed',
      action: 'settings.changed',
      actor: { userId: null, tenantId: identity.tenantId },
      outcome: 'success',
      level: audit.level,
      message: `${audit.message} (from the command line)`,
      details: { via: 'cli', ...audit.details },
    });
  return { changed, def };
}

export const settingsCommand: CliCommand = {
  name: 'settings',
  usage: 'get [KEY] | set KEY VALUE [--tenant ID] [--json]',
  summary: 'Read or change the System Settings of this installation (boots, then stops)',
  help: HELP,
  async run({ kernel, json, args, out }) {
    const { positionals, values } = parsed(args);
    const [sub] = positionals;
    const print = (data: unknown, text: string) => out(json ? `${JSON.stringify(data, null, 2)}\n` : text);
    const identity = operator(values.tenant!);
    if (sub !== 'get' && sub !== 'set') throw new Error(`Unknown subcommand '${sub ?? ''}': use get or set (cms settings --help)`);
    await checkTenant(kernel, identity.tenantId);
    if (sub === 'get') {
      if (positionals.length > 2) throw new Error(`Unexpected argument '${positionals[2]}' (cms settings --help)`);
      return get(kernel, identity, positionals[1], print);
    }
    const { changed, def } = await set(kernel, identity, positionals, values['value-stdin']);
    const note = def.restart ? ' It applies after a restart.' : '';
    if (!changed.length) return print({ changed }, `${def.key} already has that value: nothing changed.\n`);
    print({ changed }, `${def.key} = ${shown(changed[0]!)}.${note}\n`);
  },
};
