import { AuthenticationRequiredError, ForbiddenError, type RouteContext } from '../../kernel/sdk.js';
import type { UserRecord } from '../auth/public.js';

/**
 * Passkeys are credentials: only a person signed in with a session registers, lists, renames or
 * deletes them (an API key or a website token may not).
 */
export async function sessionUser({ identity, scope }: RouteContext): Promise<UserRecord> {
  if (typeof identity.meta?.sessionHash !== 'string') {
    throw new ForbiddenError('Passkeys are managed from a signed-in session; API keys and website tokens cannot manage them');
  }
  const user = identity.userId ? await scope.users.findById(identity.userId) : null;
  if (!user) throw new AuthenticationRequiredError();
  return user;
}
