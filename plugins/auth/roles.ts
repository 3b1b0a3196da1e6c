/** The built-in roles of the API decisions. `admin` bypasses permission checks; `guest` has no session. */
export const BUILT_IN_ROLES: Record<string, { description: string; permissions: string[] }> = {
  admin: { description: 'Administrator: every permission', permissions: [] },
  editor: {
    description: 'Edits content and media',
    permissions: [
      'content:read',
      'content:write',
      'content:export',
      'content:import',
      'content:sync',
      'media:read',
      'media:write',
      'dashboard:read',
      'system:read',
    ],
  },
  viewer: { description: 'Reads content and media', permissions: ['content:read', 'media:read', 'dashboard:read'] },
  guest: {
    description: 'Read-only public role for callers without a session (no permissions until an admin grants some)',
    permissions: [],
  },
};
