// The pages plugins contribute (their manifests' `adminPages`), loaded from GET /api/admin-ui/pages once
// the user is signed in, merged with the core pages of pages/registry.ts for routing and the sidebar.
import { errorText } from './errors';
import { t } from '../i18n/index.svelte';
import { ADMIN_NAV_GROUPS, navGroupOf } from '../../../kernel/admin-nav';
import { remote, type ApiSchemas } from './remote';
import { bundledPages, iconName, pages as corePages, type PageDef } from '../pages/registry';
import PluginPage from '../pages/PluginPage.svelte';

/** One entry of GET /api/admin-ui/pages. */
export type PluginPageInfo = ApiSchemas['AdminPage'];

export type AppPage = PageDef & { what?: string };

function toPage(info: PluginPageInfo): AppPage {
  const bundled = info.module.kind === 'bundled' ? bundledPages[info.module.name] : undefined;
  return {
    path: info.path,
    title: info.title,
    pluginId: info.pluginId,
    // A bundled name this build does not know: PluginPage shows an error card saying so.
    component: bundled ?? PluginPage,
    what: info.module.kind === 'bundled' && !bundled ? t('app.plugin.noBundled', { name: info.module.name }) : undefined,
    moduleUrl: info.module.kind === 'url' ? info.module.url : undefined,
    permission: info.permission ?? undefined,
    nav: info.nav ? { label: info.nav.label, order: info.nav.order, icon: iconName(info.icon), group: info.nav.group } : undefined,
  };
}

class PluginPages {
  list = $state<PluginPageInfo[]>([]);
  /** The user id the list was loaded for (another sign-in reloads it). */
  loadedFor = $state<string | null>(null);
  loading = $state(false);
  error = $state<string | null>(null);

  async load(userId: string): Promise<void> {
    if (this.loading) return;
    this.loading = true;
    try {
      const data = await remote('GET /api/admin-ui/pages');
      this.list = data.pages;
      this.error = null;
    } catch (err) {
      // The core pages still work; the plugins' pages are missing until the next load.
      this.list = [];
      this.error = errorText(err);
    } finally {
      this.loadedFor = userId;
      this.loading = false;
    }
  }

  reset(): void {
    this.list = [];
    this.loadedFor = null;
    this.error = null;
  }

  /** Core pages first (their static segments win), then the plugins' pages a core page does not already take. */
  all = $derived.by((): AppPage[] => {
    const taken = new Set(corePages.map((p) => p.path));
    return [...corePages, ...this.list.filter((p) => !taken.has(p.path)).map(toPage)];
  });

  /** The sidebar: pages with a nav entry, by group (in ADMIN_NAV_GROUPS order), then order, then label. */
  nav = $derived.by((): AppPage[] => {
    const rank = (p: AppPage) => ADMIN_NAV_GROUPS.indexOf(navGroupOf(p.nav!.group, p.nav!.icon));
    return this.all
      .filter((p) => p.nav)
      .sort((a, b) => rank(a) - rank(b) || a.nav!.order - b.nav!.order || a.nav!.label.localeCompare(b.nav!.label));
  });
}

export const pluginPages = new PluginPages();
