import type { User } from './models/user.js';

/** A user as the API answers it (no hash, no 2FA secret, no lockout state). */
export interface PublicUser {
  _id: string;
  email: string;
  username: string;
  role: string;
}

export const toPublicUser = (u: User): PublicUser => ({ _id: u.id, email: u.email, username: u.username, role: u.role });
