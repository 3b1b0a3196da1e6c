import { z } from 'zod';
import { hasPermission, defineRoute, type RouteDefinition } from '../../kernel/sdk.js';

/** The group a permission is shown under (API key and token forms): by its prefix; unknown prefixes are `other`. */
const GROUPS: Record<string, string> = {
  content: 'content',
  collections: 'content',
  media: 'media',
  user: 'users',
  config: 'data',
  backup: 'data',
  migration: 'data',
  dashboard: 'system',
  system: 'system',
  manage: 'system',
};
export const PERMISSION_GROUPS = ['content', 'media', 'users', 'data', 'system', 'other'] as const;
export const groupOf = (name: string): (typeof PERMISSION_GROUPS)[number] =>
  (GROUPS[name.split(':')[0]!] as (typeof PERMISSION_GROUPS)[number] | undefined) ?? 'other';

const permissionView = z
  .object({
    name: z.string(),
    description: z.string(),
    group: z.enum(PERMISSION_GROUPS),
    held: z.boolean().describe('Whether you hold it (admins: all): only those can be given to an API key or website token'),
  })
  .meta({ id: 'PermissionInfo' });

/** The permission catalogue of this instance (kernel and every enabled plugin's manifest). */
export const permissionRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/permissions',
    permission: 'authenticated',
    tags: ['tokens'],
    summary: 'Every permission this instance knows (kernel and enabled plugins), grouped and described, and whether you hold it',
    description:
      'Groups: content, media, users, data (configuration, backups, migrations), system, other; sorted by group, then name. The API key and website token forms offer these; a permission you do not hold cannot be given (POST /api/api-keys answers 403 then).',
    request: {},
    response: z.object({ groups: z.array(z.enum(PERMISSION_GROUPS)), permissions: z.array(permissionView) }),
    handler: ({ identity, scope }) => {
      const list = (scope.registries.permissions.list() as Array<{ name: string; description: string }>).map((p) => ({
        name: p.name,
        description: p.description,
        group: groupOf(p.name),
        held: hasPermission(identity, p.name),
      }));
      list.sort((a, b) => PERMISSION_GROUPS.indexOf(a.group) - PERMISSION_GROUPS.indexOf(b.group) || a.name.localeCompare(b.name));
      return { groups: [...PERMISSION_GROUPS], permissions: list };
    },
  }),
];
