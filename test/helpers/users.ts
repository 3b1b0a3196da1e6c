import { responseCookie, type TestKernel } from './kernel.js';

export interface NewUser {
  email: string;
  password: string;
  role: string;
  username?: string;
}

/** Creates the users through the auth plugin's users service, one after the other. */
export async function createUsers(t: TestKernel, ...users: NewUser[]): Promise<void> {
  const service = t.kernel.container.resolve<{ create(i: object): Promise<unknown> }>('users');
  for (const user of users) await service.create(user);
}

/** The session cookie (`session=...`) of a sign-in through POST /api/user/login, or null when it failed. */
export async function signInCookie(t: TestKernel, email: string, password: string): Promise<string | null> {
  return responseCookie(await t.request('/api/user/login', { method: 'POST', json: { email, password } }));
}

/** Creates an API key through POST /api/api-keys with the session cookie (`session=...`): the key. */
export async function createApiKey(t: TestKernel, cookie: string, name: string, permissions: string[]): Promise<string> {
  return (await (await t.request('/api/api-keys', { method: 'POST', headers: { cookie }, json: { name, permissions } })).json()).data.key;
}
