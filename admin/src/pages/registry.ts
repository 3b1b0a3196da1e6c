// The pages of the signed-in app (under /admin/). To add a page: write `pages/<Name>.svelte` (it gets
// `params` from the path pattern), import it here and add (or replace) its entry. Entries with `nav`
// appear in the sidebar in this order; `permission` hides the link and guards the page.
import type { Component } from 'svelte';
import Dashboard from './Dashboard.svelte';
import Placeholder from './Placeholder.svelte';
import System from './System.svelte';
import Collections from './content/Collections.svelte';
import CollectionSchema from './content/CollectionSchema.svelte';
import Entries from './content/Entries.svelte';
import EntryEditor from './content/EntryEditor.svelte';
import MediaLibrary from './media/MediaLibrary.svelte';
import Users from './users/Users.svelte';
import Account from './account/Account.svelte';
import Themes from './themes/Themes.svelte';
import Importers from './importers/Importers.svelte';

export interface PageDef {
  /** Path pattern under the app, `:name` for a parameter: `/admin/content/:collection`. */
  path: string;
  title: string;
  component: Component<any>;
  /** Sidebar entry (top-level pages only). */
  nav?: { label: string; icon: IconName };
  /** Needed to see the page (admins always may). */
  permission?: string;
}

export type IconName = 'dashboard' | 'content' | 'media' | 'import' | 'theme' | 'users' | 'account' | 'system';

const soon = (what: string) => ({ component: Placeholder, what });

export const pages: Array<PageDef & { what?: string }> = [
  { path: '/admin', title: 'Dashboard', component: Dashboard, nav: { label: 'Dashboard', icon: 'dashboard' }, permission: 'dashboard:read' },
  { path: '/admin/content', title: 'Content', component: Collections, nav: { label: 'Content', icon: 'content' }, permission: 'content:read' },
  // Static segments before parameters (the first match wins); collection names cannot contain '-'.
  { path: '/admin/content/new-collection', title: 'New collection', component: CollectionSchema, permission: 'collections:manage' },
  { path: '/admin/content/:collection/schema', title: 'Collection schema', component: CollectionSchema, permission: 'collections:manage' },
  { path: '/admin/content/:collection/new', title: 'New entry', component: EntryEditor, permission: 'content:write' },
  { path: '/admin/content/:collection/:id', title: 'Entry', component: EntryEditor, permission: 'content:read' },
  { path: '/admin/content/:collection', title: 'Entries', component: Entries, permission: 'content:read' },
  { path: '/admin/media', title: 'Media', component: MediaLibrary, nav: { label: 'Media', icon: 'media' }, permission: 'media:read' },
  { path: '/admin/importers', title: 'Importers', component: Importers, nav: { label: 'Importers', icon: 'import' }, permission: 'content:write' },
  { path: '/admin/themes', title: 'Themes', component: Themes, nav: { label: 'Themes', icon: 'theme' }, permission: 'system:read' },
  { path: '/admin/users', title: 'Users', component: Users, nav: { label: 'Users', icon: 'users' }, permission: 'user:manage' },
  { path: '/admin/account', title: 'Account', component: Account, nav: { label: 'Account', icon: 'account' } },
  { path: '/admin/system', title: 'System', component: System, nav: { label: 'System', icon: 'system' }, permission: 'system:read' },
];
