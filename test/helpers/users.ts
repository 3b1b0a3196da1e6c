import type { TestKernel } from './kernel.js';

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
