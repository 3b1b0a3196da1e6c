// The roles the Users page offers (create, invite, role changes): the built-in three until GET
// /api/user/roles answers with the tenant's (custom roles included, guest left out), each with a hint.
import { remote } from '../../lib/remote';
import { t } from '../../i18n/index.svelte';

export interface RoleChoice {
  id: string;
  label: string;
  /** A custom role's own description; the built-in roles' hints are in the catalogue (roleHint). */
  description?: string;
  permissionCount?: number;
}

/** The built-in roles, whose hints the catalogue holds (users.roleHint.<name>). */
const BUILT_IN = new Set(['admin', 'editor', 'viewer', 'guest']);

/** A role's hint in the UI's language: "edits content and media", a custom role's description, or "12 permissions". */
export function roleHint(r: RoleChoice): string {
  if (BUILT_IN.has(r.id)) return t(`users.roleHint.${r.id}`);
  return r.description || t('users.roleHint.permissions', { count: r.permissionCount ?? 0 });
}

/** "editor" -> "Editor". */
export const roleLabel = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

export const roles = $state<{ list: RoleChoice[] }>({
  list: [
    { id: 'admin', label: 'Admin' },
    { id: 'editor', label: 'Editor' },
    { id: 'viewer', label: 'Viewer' },
  ],
});

/** Reads the tenant's roles once more; on failure the list stays as it was. */
export async function loadRoles(): Promise<void> {
  try {
    const answer = await remote('GET /api/user/roles');
    const assignable = answer.filter((r) => r.name !== 'guest');
    if (assignable.length)
      roles.list = assignable.map((r) => ({
        id: r.name,
        label: roleLabel(r.name),
        description: r.description ?? undefined,
        permissionCount: r.permissions.length,
      }));
  } catch {
    // keep the built-in three
  }
}
