/**
 * The groups of the admin UI's sidebar. A page's nav entry names its group (`nav.group` in a plugin's
 * `adminPages`, `nav.group` of a core page in admin/src/pages/registry.ts); an entry without one gets
 * the group its icon suggests, and a page whose icon says nothing goes under "More".
 * No imports: the admin UI bundles this same file.
 */
export const ADMIN_NAV_GROUPS = ['home', 'content', 'media', 'data', 'settings', 'more', 'account'] as const;
export type AdminNavGroup = (typeof ADMIN_NAV_GROUPS)[number];

/** The sidebar's heading of each group, in sidebar order (`home`, the dashboard's, has none). */
export const ADMIN_NAV_GROUP_LABELS: Record<AdminNavGroup, string> = {
  home: '',
  content: 'Content',
  media: 'Media',
  data: 'Data',
  settings: 'Settings',
  more: 'More',
  account: 'Account',
};

const GROUP_OF_ICON: Record<string, AdminNavGroup> = {
  dashboard: 'home',
  content: 'content',
  media: 'media',
  import: 'data',
  data: 'data',
  theme: 'settings',
  users: 'settings',
  system: 'settings',
  account: 'account',
};

/** The group of a nav entry: the one it names, else the one its icon suggests, else `more`. */
export function navGroupOf(group: string | null | undefined, icon: string | null | undefined): AdminNavGroup {
  if (group && (ADMIN_NAV_GROUPS as readonly string[]).includes(group)) return group as AdminNavGroup;
  return GROUP_OF_ICON[icon ?? ''] ?? 'more';
}
