// Public branding of this site (GET /api/theme/public from the themes plugin): the name shown in the
// sidebar and on the sign-in pages. Falls back to "CMS" when the plugin is missing or no name is set.
import { remote } from './remote';

class Branding {
  siteName = $state('CMS');
  logoUrl = $state<string | null>(null);

  async load(): Promise<void> {
    try {
      const b = await remote('GET /api/theme/public', { query: { hostname: location.hostname } });
      if (b?.siteName) this.siteName = b.siteName;
      this.logoUrl = b?.logoUrl ?? null;
    } catch {
      // keep the defaults
    }
  }
}

export const branding = new Branding();
