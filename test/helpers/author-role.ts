/**
 * The "author" role of the rules-of-roles tests (test/integration/role-rules.test.ts, AUTHOR_RULES) on a
 * booted kernel: an admin, two authors (Ann and Bob) signed in, the `posts` collection with the field
 * `internalNotes` the authors' read rule hides. For the surfaces tested outside role-rules.test.ts
 * (subscriptions, the dashboard).
 */
import { expect } from 'chai';
import { responseCookie, type TestKernel, type TestResponse } from './kernel.js';

const PASSWORD = 'correct horse battery';

/**
 * The author's rules: reads published posts and its own without `internalNotes`, updates (title and body), deletes and
 * publishes only its own posts. Every rules-of-roles test uses these (role-rules*.test.ts).
 */
export const AUTHOR_RULES = [
  { action: 'read', collection: 'posts', fields: ['title', 'body'], where: { $or: [{ createdBy: '$user' }, { status: 'published' }] } },
  { action: 'update', collection: 'posts', fields: ['title', 'body'], where: { createdBy: '$user' } },
  { action: 'delete', collection: 'posts', where: { createdBy: '$user' } },
  { action: 'publish', collection: 'posts', where: { createdBy: '$user' } },
];

export type Caller = { id: string; cookie: string };

export function authorClient(t: TestKernel) {
  let n = 0;
  const call = (method: string, path: string, who: Caller | null, json?: unknown) =>
    t.request(path, { method, headers: who ? { cookie: who.cookie } : {}, ...(json === undefined ? {} : { json }) });
  const data = async (res: TestResponse, status = 200) => {
    const b = (await res.json()) as { data: any };
    expect(res.status, JSON.stringify(b)).to.equal(status);
    return b.data;
  };
  async function signIn(role: string): Promise<Caller> {
    const email = `author-role-${role}-${++n}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const { _id } = await t.kernel.container
      .resolve<{ create(i: object): Promise<{ _id: string }> }>('users')
      .create({ email, password: PASSWORD, role });
    const res = await call('POST', '/api/user/login', null, { email, password: PASSWORD });
    expect(res.status, `sign-in as ${role}`).to.equal(200);
    return { id: _id, cookie: responseCookie(res)! };
  }
  /** A post written by `who` (status as given), its notes written by the admin; its id. */
  async function post(who: Caller, admin: Caller, title: string, status: string, notes: string): Promise<string> {
    const id = (await data(await call('POST', '/api/collections/posts', who, { title, body: `${title} text`, status }), 201))._id as string;
    await data(await call('PATCH', `/api/collections/posts/${id}`, admin, { internalNotes: notes }));
    return id;
  }
  /** The posts collection and the author role; then the admin and two authors, signed in. */
  async function setUp(): Promise<{ admin: Caller; ann: Caller; bob: Caller }> {
    const admin = await signIn('admin');
    const fields = [
      { name: 'title', type: 'text', required: true },
      { name: 'body', type: 'text' },
      { name: 'internalNotes', type: 'text' },
    ];
    await data(await call('POST', '/api/collections', admin, { name: 'posts', fields }), 201);
    const role = { name: 'author', permissions: ['content:read', 'content:write', 'dashboard:read'], rules: AUTHOR_RULES };
    await data(await call('POST', '/api/roles', admin, role), 201);
    return { admin, ann: await signIn('author'), bob: await signIn('author') };
  }
  return { call, data, signIn, post, setUp };
}
