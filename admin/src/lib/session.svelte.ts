// The signed-in user (GET /api/user/me), shared by the shell and the pages.
import { api, ApiError } from './api';

export interface Me {
  _id: string;
  email: string;
  username: string;
  role: string;
  permissions: string[];
  preferences: Record<string, unknown>;
  is2FAEnabled: boolean;
}

class Session {
  user = $state<Me | null>(null);
  loaded = $state(false);

  async load(): Promise<Me | null> {
    try {
      this.user = await api.get<Me>('/api/user/me');
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
      await api.post('/api/user/logout');
    } finally {
      this.user = null;
    }
  }
}

export const session = new Session();
