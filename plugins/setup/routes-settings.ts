import { z } from 'zod';
import { recordRequestAudit, defineRoute, type Identity, type RouteDefinition } from '../../kernel/sdk.js';
import { listSettings, MAX_KEYS_PER_PATCH, settingShape, validateChanges, writeChanges, type SettingsScope } from './settings-changes.js';

export { MAX_KEYS_PER_PATCH, settingShape, type SettingView } from './settings-changes.js';

interface Scope extends SettingsScope {
  sessions: { requireRecentPassword(identity: Identity, proof: string | undefined): Promise<void> };
}

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
    handler: async ({ scope, identity }) => listSettings(scope as unknown as Scope, identity),
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
      const parsed = validateChanges(s.settingsCatalogue, identity, body);
      if (parsed.some(({ def }) => def.secret || def.sensitive))
        await s.sessions.requireRecentPassword(identity, ctx.get('x-reauth-proof') || undefined);
      const { changed, audit } = await writeChanges(s.settings, identity, parsed);
      if (audit)
        await recordRequestAudit(ctx, {
          domain: 'settings',
          operation: 'changed',
          action: 'settings.changed',
          outcome: 'success',
          level: audit.level,
          message: audit.message,
          target: { type: 'settings', id: null },
          details: audit.details,
        });
      return changed;
    },
  }),
];
