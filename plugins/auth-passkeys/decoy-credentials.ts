import type { AuthSecrets } from '../auth/public.js';

/**
 * allowCredentials for an email with no passkeys (unknown, or a user without any): one stable,
 * made-up credential id derived from the email with the instance's key, so the answer looks like a
 * real user's and repeated requests do not tell the two cases apart.
 */
export async function decoyCredentials(secrets: Pick<AuthSecrets, 'sign'>, tenantId: string, email: string) {
  const id = await secrets.sign(`passkey-decoy.${tenantId}.${email.trim().toLowerCase()}`);
  return [{ id, transports: ['hybrid', 'internal'] }];
}
