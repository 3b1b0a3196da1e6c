/**
 * System Settings as GET and PATCH /api/settings read and change them (routes-settings.ts), shared with
 * `cms settings` (settings-command.ts): who sees and changes what, the validation, the write and its audit fields.
 */
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import {
  ForbiddenError,
  ValidationError,
  type ValidationIssue,
  hasPermission,
  INSTALLATION_TENANT,
  isInstallationAdmin,
  type Identity,
  type SettingsService,
} from '../../kernel/sdk.js';
import { SETTING_GROUPS } from './settings-catalogue.js';
import { valueSchema, type SettingDefinition, type SettingsRegistry } from './settings-registry.js';

/** Most keys one PATCH may name (every loop over client input has a limit). */
export const MAX_KEYS_PER_PATCH = 100;

/** One setting as GET /api/settings answers it (and PATCH, for the settings it changed). */
export const settingShape = z.object({
  key: z.string(),
  value: z.unknown().describe('The value in force; null for a secret (see isSet)'),
  type: z.enum(['string', 'text', 'email', 'url', 'integer', 'number', 'boolean', 'enum', 'string-list']),
  group: z.string(),
  groupLabel: z.string(),
  label: z.string(),
  description: z.string(),
  public: z.boolean().describe('Seeded as a public setting (not one of the private credentials and keys)'),
  secret: z.boolean().describe('Write-only: value is always null'),
  isSet: z.boolean().optional().describe('Secrets only: whether a value is stored'),
  scope: z.enum(['tenant', 'installation']),
  editable: z
    .boolean()
    .describe('Whether the caller may change it (system:settings; installation settings: installation administrators only)'),
  requiresReauth: z.boolean().describe('Changing it needs sudo mode (403 REAUTH_REQUIRED otherwise)'),
  appliesAfterRestart: z
    .boolean()
    .describe(
      'Read when the instance starts (media storage): a change takes effect after a restart; every other setting applies at once on every instance',
    ),
  nullable: z.boolean(),
  default: z.unknown().optional().describe('The value while none is stored (never given for secrets)'),
  options: z.array(z.string()).optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  maxLength: z.number().optional(),
  maxItems: z.number().optional(),
  itemPattern: z.string().optional(),
});
export type SettingView = z.infer<typeof settingShape>;

export interface SettingsScope {
  settings: SettingsService;
  settingsCatalogue: SettingsRegistry;
}

const groupLabel = (id: string) => SETTING_GROUPS.find((g) => g.id === id)?.label ?? id;
const scopeOf = (def: SettingDefinition) => def.scope ?? 'tenant';
/** The tenant whose row holds the setting for this caller. */
const ownerTenant = (def: SettingDefinition, identity: Identity) =>
  scopeOf(def) === 'installation' ? INSTALLATION_TENANT : identity.tenantId;
const canChange = (def: SettingDefinition, identity: Identity) =>
  hasPermission(identity, 'system:settings') && (scopeOf(def) === 'tenant' || isInstallationAdmin(identity));
/**
 * What a caller may see: everything in the installation's tenant; another tenant's admin sees its own
 * settings and the installation's non-secret ones (read-only), never the installation's secrets.
 */
const visible = (def: SettingDefinition, identity: Identity) =>
  identity.tenantId === INSTALLATION_TENANT || scopeOf(def) === 'tenant' || !def.secret;

function view(def: SettingDefinition, stored: Map<string, unknown>, identity: Identity): SettingView {
  const has = stored.has(def.key);
  const value = has ? stored.get(def.key) : def.default;
  const bounds = Object.fromEntries(
    (['options', 'min', 'max', 'maxLength', 'maxItems', 'itemPattern'] as const).flatMap((k) =>
      def[k] === undefined ? [] : [[k, k === 'options' ? [...(def.options ?? [])] : def[k]]],
    ),
  );
  return {
    key: def.key,
    value: def.secret ? null : (value ?? null),
    type: def.type,
    group: def.group,
    groupLabel: groupLabel(def.group),
    label: def.label,
    description: def.description,
    public: !def.isPrivate,
    secret: def.secret === true,
    ...(def.secret ? { isSet: value !== null && value !== undefined && value !== '' } : { default: def.default ?? null }),
    scope: scopeOf(def),
    editable: canChange(def, identity),
    requiresReauth: def.secret === true || def.sensitive === true,
    appliesAfterRestart: def.restart === true,
    nullable: def.nullable === true,
    ...bounds,
  };
}

/** The stored values the caller's view reads: its tenant's, and the installation's for installation settings. */
async function storedFor(
  settings: SettingsService,
  identity: Identity,
): Promise<{ own: Map<string, unknown>; installation: Map<string, unknown> }> {
  const installation = await settings.valuesFor(INSTALLATION_TENANT);
  const own = identity.tenantId === INSTALLATION_TENANT ? installation : await settings.valuesFor(identity.tenantId);
  return { own, installation };
}

const viewOf = (def: SettingDefinition, stored: { own: Map<string, unknown>; installation: Map<string, unknown> }, identity: Identity) =>
  view(def, scopeOf(def) === 'installation' ? stored.installation : stored.own, identity);

/** A value for the audit entry: secrets never (only whether one is now set), others as they are. */
const auditValue = (def: SettingDefinition, value: unknown) => (def.secret ? (value === null ? '(cleared)' : '(set)') : value);

/** Every setting the caller may see, in the order of the Settings page groups (GET /api/settings). */
export async function listSettings(s: SettingsScope, identity: Identity): Promise<SettingView[]> {
  const stored = await storedFor(s.settings, identity);
  const order = new Map<string, number>(SETTING_GROUPS.map((g, i) => [g.id, i]));
  return s.settingsCatalogue
    .list()
    .filter((def) => visible(def, identity))
    .sort((a, b) => (order.get(a.group) ?? 99) - (order.get(b.group) ?? 99))
    .map((def) => viewOf(def, stored, identity));
}

export type ParsedChange = { def: SettingDefinition; value: unknown };

/**
 * {KEY: value} checked against each key's declared type and bounds: a ValidationError naming every bad or unknown
 * key, a ForbiddenError for installation settings the caller may not change. Nothing is written.
 */
export function validateChanges(catalogue: SettingsRegistry, identity: Identity, body: Record<string, unknown>): ParsedChange[] {
  const issues: ValidationIssue[] = [];
  const parsed: ParsedChange[] = [];
  for (const [key, raw] of Object.entries(body)) {
    const def = catalogue.get(key);
    if (!def || !visible(def, identity)) {
      issues.push({ path: key, message: `${key} is not a setting this installation knows` });
      continue;
    }
    const checked = valueSchema(def).safeParse(raw);
    if (!checked.success) issues.push({ path: key, message: `${def.label}: ${checked.error.issues[0]?.message ?? 'not a valid value'}` });
    else parsed.push({ def, value: checked.data });
  }
  if (issues.length) {
    const first = issues[0]!;
    throw new ValidationError(
      issues.length === 1
        ? `${first.path}: ${first.message}`
        : `${issues.length} settings are not valid: ${issues.map((i) => i.path).join(', ')}`,
      issues,
    );
  }
  const refused = parsed.filter(({ def }) => !canChange(def, identity)).map(({ def }) => def.key);
  if (refused.length)
    throw new ForbiddenError(`Only the installation's administrators change ${refused.join(', ')} (settings of the whole installation)`);
  return parsed;
}

/** What the audit entry of a change says (secret values never: only whether one is now set). */
export interface ChangeAudit {
  level: 'high' | 'medium';
  message: string;
  details: { keys: string[]; changes: Record<string, { from: unknown; to: unknown; tenantId: string }> };
}

/**
 * Writes the validated values that differ from those in force (installation settings in the installation tenant's
 * rows, the others in the caller's tenant); the changed settings as GET answers them, and the audit fields.
 */
export async function writeChanges(
  settings: SettingsService,
  identity: Identity,
  parsed: ParsedChange[],
): Promise<{ changed: SettingView[]; audit: ChangeAudit | null }> {
  const before = await storedFor(settings, identity);
  const current = (def: SettingDefinition) => {
    const stored = scopeOf(def) === 'installation' ? before.installation : before.own;
    return stored.has(def.key) ? stored.get(def.key) : def.default;
  };
  const changed = parsed.filter(({ def, value }) => !isDeepStrictEqual(current(def), value));
  if (!changed.length) return { changed: [], audit: null };
  const byTenant = new Map<string, Record<string, unknown>>();
  for (const { def, value } of changed) {
    const tenant = ownerTenant(def, identity);
    byTenant.set(tenant, { ...byTenant.get(tenant), [def.key]: value });
  }
  for (const [tenant, values] of byTenant) await settings.setMany(values, tenant);
  const audit: ChangeAudit = {
    level: changed.some(({ def }) => def.secret || def.sensitive) ? 'high' : 'medium',
    message: `Settings changed: ${changed.map(({ def }) => def.key).join(', ')}`,
    details: {
      keys: changed.map(({ def }) => def.key),
      changes: Object.fromEntries(
        changed.map(({ def, value }) => [
          def.key,
          { from: def.secret ? undefined : current(def), to: auditValue(def, value), tenantId: ownerTenant(def, identity) },
        ]),
      ),
    },
  };
  const after = await storedFor(settings, identity);
  return { changed: changed.map(({ def }) => viewOf(def, after, identity)), audit };
}
