// The roles the Users page offers (create, invite, role changes): the built-in three until GET
// /api/user/roles answers with the tenant's (custom roles included, guest left out), each with a hint.
import { remote } from '../../lib/remote';

export interface RoleChoice {
  id: string;
  label: string;
  hint: string;
}

/** Hints for the built-in roles; the list itself comes from GET /api/user/roles (custom roles included). */
const HINTS: Record<string, string> = {
  admin: 'every permission',
  editor: 'edits content and media',
  viewer: 'reads content and media',
  guest: 'public read-only',
};

/** "editor" -> "Editor". */
export const roleLabel = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

export const roles = $state<{ list: RoleChoice[] }>({
  list: [
    { id: 'admin', label: 'Admin', hint: HINTS.admin! },
    { id: 'editor', label: 'Editor', hint: HINTS.editor! },
    { id: 'viewer', label: 'Viewer', hint: HINTS.viewer! },
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
        hint: HINTS[r.name] ?? (r.description || `${r.permissions.length} permissions`),
      }));
  } catch {
    // keep the built-in three
  }
}
