import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import {
  ForbiddenError,
  ValidationError,
  type ValidationIssue,
  recordRequestAudit,
  hasPermission,
  INSTALLATION_TENANT,
  isInstallationAdmin,
  type Identity,
  defineRoute,
  type RouteDefinition,
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

interface Scope {
  settings: SettingsService;
  settingsCatalogue: SettingsRegistry;
  sessions: { requireRecentPassword(identity: Identity, proof: string | undefined): Promise<void> };
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

export const settingsRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/settings',
    permission: 'system:read',
    tags: ['settings'],
    summary: 'Every System Setting with its type, group, label, help and bounds; secrets are write-only (value null, isSet)',
    description:
      'The seeded settings and those plugins declare, in the order of the Settings page groups. Installation settings (scope installation) ' +
      "are the installation tenant's values: another tenant's admin sees them read-only (editable false) and never sees the installation's secrets. " +
      'Extra fields describe the validation PATCH applies: options (enum), min/max (numbers), maxLength (text and each list item), maxItems and itemPattern (lists).',
    request: {},
    response: z.array(settingShape),
    handler: async ({ scope, identity }) => {
      const s = scope as unknown as Scope;
      const stored = await storedFor(s.settings, identity);
      const order = new Map<string, number>(SETTING_GROUPS.map((g, i) => [g.id, i]));
      return s.settingsCatalogue
        .list()
        .filter((def) => visible(def, identity))
        .sort((a, b) => (order.get(a.group) ?? 99) - (order.get(b.group) ?? 99))
        .map((def) => viewOf(def, stored, identity));
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/api/settings',
    permission: 'system:settings',
    tags: ['settings'],
    summary: 'Changes System Settings {KEY: value, ...} all or nothing; answers the changed settings in the shape of GET',
    description:
      'Each value is checked against its declared type and bounds: 400 VALIDATION_ERROR naming the key (issues[].path), an unknown key too; ' +
      'nothing of a refused request is saved. Installation settings: 403 FORBIDDEN for anyone but installation administrators. ' +
      'Secrets and security-sensitive settings (requiresReauth) need sudo mode: 403 REAUTH_REQUIRED without a recent password (X-Reauth-Proof). ' +
      'A secret is set with text and cleared with null. Audited as settings.changed (secret values never in the entry) and applied on every instance (SETTING_CHANGED on the event bus). ' +
      'Values equal to the stored ones are not written and not answered.',
    request: {
      body: z
        .record(z.string().max(64), z.unknown())
        .refine((o) => Object.keys(o).length > 0, 'name at least one setting')
        .refine((o) => Object.keys(o).length <= MAX_KEYS_PER_PATCH, `at most ${MAX_KEYS_PER_PATCH} settings per request`),
    },
    response: z.array(settingShape),
    handler: async (route) => {
      const { ctx, body, identity } = route;
      const s = route.scope as unknown as Scope;
      const issues: ValidationIssue[] = [];
      const parsed: Array<{ def: SettingDefinition; value: unknown }> = [];
      for (const [key, raw] of Object.entries(body)) {
        const def = s.settingsCatalogue.get(key);
        if (!def || !visible(def, identity)) {
          issues.push({ path: key, message: `${key} is not a setting this installation knows` });
          continue;
        }
        const checked = valueSchema(def).safeParse(raw);
        if (!checked.success)
          issues.push({ path: key, message: `${def.label}: ${checked.error.issues[0]?.message ?? 'not a valid value'}` });
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
        throw new ForbiddenError(
          `Only the installation's administrators change ${refused.join(', ')} (settings of the whole installation)`,
        );
      if (parsed.some(({ def }) => def.secret || def.sensitive))
        await s.sessions.requireRecentPassword(identity, ctx.get('x-reauth-proof') || undefined);

      const before = await storedFor(s.settings, identity);
      const current = (def: SettingDefinition) => {
        const stored = scopeOf(def) === 'installation' ? before.installation : before.own;
        return stored.has(def.key) ? stored.get(def.key) : def.default;
      };
      const changed = parsed.filter(({ def, value }) => !isDeepStrictEqual(current(def), value));
      if (!changed.length) return [];
      // Installation settings live in the installation tenant's rows, the others in the caller's tenant.
      const byTenant = new Map<string, Record<string, unknown>>();
      for (const { def, value } of changed) {
        const tenant = ownerTenant(def, identity);
        byTenant.set(tenant, { ...byTenant.get(tenant), [def.key]: value });
      }
      for (const [tenant, values] of byTenant) await s.settings.setMany(values, tenant);

      await recordRequestAudit(ctx, {
        domain: 'settings',
        operation: 'changed',
        action: 'settings.changed',
        outcome: 'success',
        level: changed.some(({ def }) => def.secret || def.sensitive) ? 'high' : 'medium',
        message: `Settings changed: ${changed.map(({ def }) => def.key).join(', ')}`,
        target: { type: 'settings', id: null },
        details: {
          keys: changed.map(({ def }) => def.key),
          changes: Object.fromEntries(
            changed.map(({ def, value }) => [
              def.key,
              { from: def.secret ? undefined : current(def), to: auditValue(def, value), tenantId: ownerTenant(def, identity) },
            ]),
          ),
        },
      });
      const after = await storedFor(s.settings, identity);
      return changed.map(({ def }) => viewOf(def, after, identity));
    },
  }),
];
