// A blog on a real kernel for the client SDK's tests: an administrator (signed in through the SDK, session cookie),
// collections `authors` and `posts` (a relation and a media field), published and draft posts, and the bearer
// credentials a site uses (a website token, API keys), all made through the SDK's typed calls of the fixed routes.
import type { TestKernel, TestKernelOptions } from './kernel.js';
import { createUsers } from './users.js';
import { createClient, type CmsClient } from './sdk.js';

/** The kernel of the SDK suites: SQLite, and quick password hashing (the suites sign in often). */
export const SDK_KERNEL: TestKernelOptions = { db: 'sqlite', config: { plugins: { options: { auth: { bcryptRounds: 4 } } } } };

export const ADMIN = { email: 'sdk-admin@example.com', password: 'correct horse battery staple', role: 'admin' };
/** A second account, for tests that sign out (a sign-out ends the user's sessions everywhere). */
export const EDITOR = { email: 'sdk-editor@example.com', password: 'another long passphrase', role: 'editor' };

export const AUTHORS = { name: 'authors', fields: [{ name: 'name', type: 'text' as const, required: true }] };
export const POSTS = {
  name: 'posts',
  fields: [
    { name: 'title', type: 'text' as const, required: true },
    { name: 'kind', type: 'select' as const, options: ['news', 'essay'] },
    { name: 'body', type: 'richtext' as const },
    { name: 'author', type: 'relation' as const, collection: 'authors' },
    { name: 'cover', type: 'media' as const },
  ],
};

export interface Blog {
  admin: CmsClient;
  adaId: string;
  /** Published posts' titles, oldest first. */
  published: string[];
  /** A draft post's title (readers never see it). */
  draft: string;
}

/** Creates the administrator, signs in with the SDK and writes the blog (`published` posts by Ada, one draft). */
export async function seedBlog(t: TestKernel, published = ['Hello, world', 'Second <post> & more']): Promise<Blog> {
  await createUsers(t, ADMIN, EDITOR);
  const admin = createClient({ url: t.url });
  await admin.login(ADMIN.email, ADMIN.password);
  await admin.call('POST /api/collections', { body: AUTHORS });
  await admin.call('POST /api/collections', { body: POSTS });
  const ada = await admin.collection('authors').create({ name: 'Ada Lovelace', status: 'published' });
  for (const title of published) {
    await admin.collection('posts').create({ title, kind: 'essay', body: `<p>${title}</p>`, author: ada._id, status: 'published' });
    await new Promise((resolve) => setTimeout(resolve, 5)); // distinct createdAt: tests read them newest or oldest first
  }
  const draft = 'Unfinished draft';
  await admin.collection('posts').create({ title: draft, author: ada._id });
  return { admin, adaId: ada._id, published, draft };
}

/** A website token of the signed-in administrator, narrowed to reading content (what a site builds with). */
export async function readToken(admin: CmsClient, name = 'site'): Promise<string> {
  return (await admin.call('POST /api/website-tokens', { body: { name, permissions: ['content:read'] } })).token;
}

/** An API key of the signed-in administrator with these permissions. */
export async function apiKey(admin: CmsClient, name: string, permissions: string[]): Promise<string> {
  return (await admin.call('POST /api/api-keys', { body: { name, permissions } })).key;
}
