// The signed-in user (GET /api/user/me), shared by the shell and the pages.
import { remote, type RouteResponse, ApiError } from './remote';
import { useLocale } from '../i18n/index.svelte';

export type Me = RouteResponse<'GET /api/user/me'>;

class Session {
  user = $state<Me | null>(null);
  loaded = $state(false);

  async load(): Promise<Me | null> {
    try {
      this.user = await remote('GET /api/user/me');
      // The UI's language: the user's preference, else the browser's.
      useLocale(this.user.preferences?.locale);
    } catch (err) {
      if (!(err instanceof ApiError) || (err.status !== 401 && err.status !== 503)) throw err;
      this.user = null;
    } finally {
      this.loaded = true;
    }
    return this.user;
  }

  /** Admins hold every permission; others what their role grants. */
  can(permission: string): boolean {
    const u = this.user;
    if (!u) return false;
    return u.role === 'admin' || permission === 'authenticated' || u.permissions.includes(permission);
  }

  async signOut(): Promise<void> {
    try {
      await remote('POST /api/user/logout');
    } finally {
      this.user = null;
    }
  }
}

export const session = new Session();
