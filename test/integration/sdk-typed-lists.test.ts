import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../../kernel/version.js';
import { useTestKernel } from '../helpers/kernel.js';
import { apiKey, seedBlog, type Blog, SDK_KERNEL } from '../helpers/sdk-blog.js';
import { createClient } from '../helpers/sdk.js';

// The client SDK's lists (packages/sdk, issue 39 item 1): pagination as an async iterator over real pages, and
// entries typed from the instance's own generated types (GET /api/types.ts: CmsTypes), checked by compiling code
// that uses them with TypeScript, as a site's build would.

const MANY = 230;

/** fetch that counts the list requests it passes on (the real fetch, to the real kernel). */
function countingFetch() {
  const counter = { lists: 0 };
  const wrapped: typeof fetch = (input, init) => {
    if (/\/api\/collections\/posts\?/.test(String(input)) && (init?.method ?? 'GET') === 'GET') counter.lists++;
    return fetch(input, init);
  };
  return { counter, fetch: wrapped };
}

const USAGE = (sdk: string) => `
import { createClient, isCmsError } from ${JSON.stringify(sdk)};
import type { Author, CmsTypes, Collections } from './cms-types.js';

const cms = createClient<CmsTypes>({ url: 'http://127.0.0.1:3000', token: 'token' });

export async function reads(): Promise<void> {
  const page = await cms.collection('posts').list({
    populate: ['author'],
    filter: { kind: 'essay', 'author.name': { startsWith: 'Ada' }, $or: [{ title: { contains: 'o' } }, { cover: { null: true } }] },
    locale: 'en',
    sort: '-createdAt',
  });
  const first = page.items[0]!;
  const name: string | undefined = first.author?.name;
  const title: string = first.title;
  const cover: string | null = first.cover; // not populated: the media id
  const total: number = page.total;
  // @ts-expect-error a relation that is not populated is an id, not an entry
  const wrong: Author | null = (await cms.collection('posts').get('id')).author;
  const only = await cms.collection('posts').list({ fields: ['title'] });
  const kept: string = only.items[0]!.title;
  // @ts-expect-error fields leaves the other fields out
  only.items[0]!.body;
  // @ts-expect-error no such collection
  cms.collection('comments');
  // @ts-expect-error only relation and media fields can be populated
  cms.collection('posts').list({ populate: ['title'] });
  // @ts-expect-error a select filters by its options
  cms.collection('posts').list({ filter: { kind: 'poem' } });
  // @ts-expect-error the title is required to create a post
  cms.collection('posts').create({ kind: 'news' });
  for await (const post of cms.collection('posts').all({ populate: ['cover', 'author'] })) {
    const url: string | undefined = post.cover?.url;
    const author: string | undefined = post.author?.name;
    void [url, author];
  }
  const made = await cms.collection('authors').create({ name: 'Grace', status: 'published' });
  const id: string = made._id;
  const me = await cms.call('GET /api/user/me');
  const role: string = me.role;
  // @ts-expect-error the route's params are required
  cms.call('GET /api/collections/:collection/:entryId');
  try {
    await cms.collection('posts').get('x');
  } catch (err) {
    if (isCmsError(err, 'ENTRY_NOT_FOUND')) {
      const code: 'ENTRY_NOT_FOUND' = err.code;
      void code;
    }
  }
  // A bare Collections map types the entries; it cannot type what populate answers, so it takes none.
  const bare = createClient<Collections>({ url: 'http://127.0.0.1:3000' });
  const plain: string | null = (await bare.collection('posts').get('x')).author;
  // @ts-expect-error populate needs CmsTypes
  bare.collection('posts').get('x', { populate: ['author'] });
  void [name, title, cover, total, wrong, kept, id, role, plain];
}
`;

describe('client SDK: pagination and typed lists against a kernel (sqlite)', function () {
  this.timeout(120000);
  let blog: Blog;
  let key: string;
  const t = useTestKernel(SDK_KERNEL, {
    seed: async () => {
      blog = await seedBlog(t, []);
      key = await apiKey(blog.admin, 'lists', ['content:read', 'content:write']);
      for (let start = 0; start < MANY; start += 100) {
        const entries = Array.from({ length: Math.min(100, MANY - start) }, (_, i) => ({
          title: `Post ${String(start + i).padStart(3, '0')}`,
          author: blog.adaId,
          status: 'published',
        }));
        await blog.admin.call('POST /api/collections/:collection/batch', { params: { collection: 'posts' }, body: { entries } });
      }
    },
  });

  it('all() yields every entry once, fetching 100 at a time as the loop asks', async function () {
    const { counter, fetch } = countingFetch();
    const posts = createClient({ url: t.url, apiKey: key, fetch }).collection('posts');
    const titles: string[] = [];
    for await (const post of posts.all({ status: 'published', sort: 'title', fields: ['title'] })) titles.push(post.title as string);
    expect(titles).to.have.length(MANY);
    expect(titles[0]).to.equal('Post 000');
    expect(titles[MANY - 1]).to.equal(`Post ${MANY - 1}`);
    expect(new Set(titles).size).to.equal(MANY);
    expect(counter.lists).to.equal(3);
  });

  it('a loop that stops early fetches no further page', async function () {
    const { counter, fetch } = countingFetch();
    const posts = createClient({ url: t.url, apiKey: key, fetch }).collection('posts');
    let seen = 0;
    for await (const post of posts.all({ status: 'published' })) {
      expect(post._id).to.be.a('string');
      if (++seen === 150) break;
    }
    expect(counter.lists).to.equal(2);
  });

  it('pages() gives the pages with their total; an entry written during the loop does not repeat one', async function () {
    const posts = createClient({ url: t.url, apiKey: key }).collection('posts');
    const sizes: number[] = [];
    for await (const page of posts.pages({ limit: 100 })) {
      sizes.push(page.items.length);
      expect(page.total).to.be.at.least(MANY);
    }
    expect(sizes).to.deep.equal([100, 100, MANY - 200 + 1]); // with the seed's draft
    // Newest first (the default order): a post written after the first page pushes every entry one place on.
    const ids: string[] = [];
    let written = false;
    for await (const post of posts.all()) {
      ids.push(post._id);
      if (!written && ids.length === 100) {
        written = true;
        await posts.create({ title: 'Written during the loop', status: 'published' });
      }
    }
    expect(new Set(ids).size).to.equal(ids.length);
    expect(ids.length).to.equal(MANY + 1);
  });

  it('types entries from GET /api/types.ts: populate, fields, filters, create and typed route calls type-check', async function () {
    const source = await blog.admin.call('GET /api/types.ts');
    expect(source).to.be.a('string').and.include('export interface CmsTypes');
    const dir = mkdtempSync(join(tmpdir(), 'cms-sdk-types-'));
    writeFileSync(join(dir, 'cms-types.ts'), source as string);
    writeFileSync(join(dir, 'usage.ts'), USAGE(join(PROJECT_ROOT, 'packages', 'sdk', 'dist', 'index.js')));
    writeFileSync(join(dir, 'package.json'), '{"type": "module"}');
    const program = ts.createProgram([join(dir, 'usage.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
      types: [],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    expect(problems).to.deep.equal([]);
  });

  it('answers what the types say: populated relations as entries, unpopulated ones as ids', async function () {
    const site = createClient({ url: t.url, apiKey: key });
    const page = await site.collection('posts').list({
      populate: ['author'],
      filter: { 'author.name': { startsWith: 'Ada' }, title: { startsWith: 'Post 00' } },
      sort: 'title',
      limit: 5,
    });
    expect(page.items.map((p) => p.title)).to.deep.equal(['Post 000', 'Post 001', 'Post 002', 'Post 003', 'Post 004']);
    expect(page.total).to.equal(10);
    expect((page.items[0]!.author as { name: string }).name).to.equal('Ada Lovelace');
    const plain = await site.collection('posts').get(page.items[0]!._id);
    expect(plain.author).to.equal(blog.adaId);
  });
});
