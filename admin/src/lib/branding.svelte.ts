// Public branding of this site: the name shown in the sidebar and on the sign-in pages. The site's name
// comes from the setup status (the SITE_NAME setting, public); the tenant's theme branding
// (GET /api/theme/public from the themes plugin, null for the default tenant) may name it otherwise and
// adds a logo. Falls back to "CMS" when neither says anything.
import { remote } from './remote';

class Branding {
  siteName = $state('CMS');
  logoUrl = $state<string | null>(null);

  async load(): Promise<void> {
    const [status, theme] = await Promise.all([
      remote('GET /api/setup/status').catch(() => null),
      remote('GET /api/theme/public', { query: { hostname: location.hostname } }).catch(() => null),
    ]);
    const name = theme?.siteName ?? status?.siteName;
    if (name) this.siteName = name;
    this.logoUrl = theme?.logoUrl ?? null;
  }
}

export const branding = new Branding();
