// The core pages of the signed-in app (under /admin/). To add a page: write `pages/<Name>.svelte` (it gets
// `params` from the path pattern), import it here and add (or replace) its entry. Entries with `nav`
// appear in the sidebar by `order`; `permission` hides the link and guards the page.
// Pages that belong to a plugin (media, importers, themes, third-party pages) come from the plugins'
// manifests (`adminPages`, GET /api/admin-ui/pages; see lib/plugin-pages.svelte.ts): a `bundled:<name>`
// module names a component of `bundledPages` below, any other module is loaded by PluginPage.svelte.
import type { Component } from 'svelte';
import type { AdminNavGroup } from '../../../kernel/admin-nav';
import Dashboard from './Dashboard.svelte';
import System from './System.svelte';
import Collections from './content/Collections.svelte';
import CollectionSchema from './content/CollectionSchema.svelte';
import Components from './content/Components.svelte';
import ComponentEditor from './content/ComponentEditor.svelte';
import Entries from './content/Entries.svelte';
import Board from './content/Board.svelte';
import EntryEditor from './content/EntryEditor.svelte';
import Locales from './content/Locales.svelte';
import MediaLibrary from './media/MediaLibrary.svelte';
import Users from './users/Users.svelte';
import Roles from './users/Roles.svelte';
import Account from './account/Account.svelte';
import Themes from './themes/Themes.svelte';
import Importers from './importers/Importers.svelte';
import ConfigData from './data/ConfigData.svelte';
import MigrationsData from './data/MigrationsData.svelte';
import BackupsData from './data/BackupsData.svelte';
import ExportData from './data/ExportData.svelte';
import ImportData from './data/ImportData.svelte';
import SyncData from './data/SyncData.svelte';
import Settings from './settings/Settings.svelte';
import Webhooks from './settings/Webhooks.svelte';
import Workflows from './settings/Workflows.svelte';
import AgentSessions from './settings/AgentSessions.svelte';

export interface PageDef {
  /** Path pattern under the app, `:name` for a parameter: `/admin/content/:collection`. */
  path: string;
  title: string;
  component: Component<any>;
  /**
   * Sidebar entry (top-level pages only): shown under its group's heading (default: the group of its icon,
   * else "More"), sorted by order within the group (plugin pages default to 500).
   */
  nav?: { label: string; icon: IconName; order: number; group?: AdminNavGroup };
  /** Needed to see the page (admins always may). */
  permission?: string;
  /** Pages from a plugin's manifest: the plugin, and the URL of a third-party page module. */
  pluginId?: string;
  moduleUrl?: string;
}

export const ICON_NAMES = ['dashboard', 'content', 'media', 'import', 'theme', 'users', 'account', 'system', 'data', 'plugin'] as const;
export type IconName = (typeof ICON_NAMES)[number];
/** A plugin's icon name, or the generic `plugin` icon for a name the UI does not draw. */
export const iconName = (name: string | null | undefined): IconName =>
  (ICON_NAMES as readonly string[]).includes(name ?? '') ? (name as IconName) : 'plugin';

/** The components a plugin may name as `bundled:<name>` in its manifest's adminPages. */
export const bundledPages: Record<string, Component<any>> = {
  importers: Importers,
  media: MediaLibrary,
  themes: Themes,
  'data-config': ConfigData,
  'data-migrations': MigrationsData,
  'data-backups': BackupsData,
  'data-export': ExportData,
  'data-import': ImportData,
  'data-sync': SyncData,
  'agent-sessions': AgentSessions,
};

export const pages: Array<PageDef & { what?: string }> = [
  {
    path: '/admin',
    title: 'Dashboard',
    component: Dashboard,
    nav: { label: 'Dashboard', icon: 'dashboard', order: 0, group: 'home' },
    permission: 'dashboard:read',
  },
  {
    path: '/admin/content',
    title: 'Content',
    component: Collections,
    nav: { label: 'Collections', icon: 'content', order: 10, group: 'content' },
    permission: 'content:read',
  },
  // Static segments before parameters (the first match wins); collection names cannot contain '-'.
  { path: '/admin/content/new-collection', title: 'New collection', component: CollectionSchema, permission: 'collections:manage' },
  { path: '/admin/content/:collection/schema', title: 'Collection schema', component: CollectionSchema, permission: 'collections:manage' },
  { path: '/admin/content/:collection/board', title: 'Board', component: Board, permission: 'content:read' },
  { path: '/admin/content/:collection/new', title: 'New entry', component: EntryEditor, permission: 'content:write' },
  { path: '/admin/content/:collection/:id', title: 'Entry', component: EntryEditor, permission: 'content:read' },
  { path: '/admin/content/:collection', title: 'Entries', component: Entries, permission: 'content:read' },
  // Components (component and blocks fields): component names cannot contain '-' either.
  { path: '/admin/components', title: 'Components', component: Components, permission: 'content:read' },
  { path: '/admin/components/new-component', title: 'New component', component: ComponentEditor, permission: 'collections:manage' },
  { path: '/admin/components/:name', title: 'Component', component: ComponentEditor, permission: 'collections:manage' },
  // The content locales (issue 36): read with content:read, changed with system:settings.
  { path: '/admin/locales', title: 'Locales', component: Locales, permission: 'content:read' },
  // Media, the Data pages (importers, packages, sync, backups, configuration, migrations) and Themes come from
  // their plugins' manifests.
  {
    path: '/admin/users',
    title: 'Users',
    component: Users,
    nav: { label: 'Users', icon: 'users', order: 20, group: 'settings' },
    permission: 'user:manage',
  },
  {
    path: '/admin/roles',
    title: 'Roles',
    component: Roles,
    nav: { label: 'Roles', icon: 'users', order: 21, group: 'settings' },
    permission: 'user:manage',
  },
  {
    path: '/admin/account',
    title: 'Account',
    component: Account,
    nav: { label: 'Your account', icon: 'account', order: 10, group: 'account' },
  },
  {
    path: '/admin/system',
    title: 'System',
    component: System,
    nav: { label: 'System', icon: 'system', order: 40, group: 'settings' },
    permission: 'system:read',
  },
  {
    path: '/admin/settings',
    title: 'Settings',
    component: Settings,
    nav: { label: 'Settings', icon: 'system', order: 75 },
    permission: 'system:read',
  },
  {
    path: '/admin/webhooks',
    title: 'Webhooks',
    component: Webhooks,
    nav: { label: 'Webhooks', icon: 'system', order: 76 },
    permission: 'system:settings',
  },
  {
    path: '/admin/workflows',
    title: 'Review stages',
    component: Workflows,
    nav: { label: 'Review stages', icon: 'system', order: 77 },
    permission: 'system:settings',
  },
];
