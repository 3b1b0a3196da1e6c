// A static blog generator in plain Node (no framework): reads the published posts of a CMS kernel instance with the
// client SDK and writes public/index.html (newest first) and public/posts/<slug>.html. Run it again to rebuild.
//
//   CMS_URL=http://127.0.0.1:3000 CMS_TOKEN=<website token> node build.mjs [out-dir]
//
// The collection (CMS_COLLECTION, default posts) needs a `title` text field; `body` (rich text: HTML the server has
// already sanitised) and `author` (a relation to a collection with a `name` field) are used when they exist.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createClient, isCmsError } from '@cms-kernel/sdk';

const url = process.env.CMS_URL ?? 'http://127.0.0.1:3000';
const token = process.env.CMS_TOKEN;
const collection = process.env.CMS_COLLECTION ?? 'posts';
const out = resolve(process.argv[2] ?? 'public');
const siteName = process.env.SITE_NAME ?? 'Blog';

/** Text for HTML: the five characters that matter escaped. */
const escape = (value) =>
  String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
/** A file name from a slug: lowercase letters, digits and dashes only (a slug never names a path outside out/). */
const fileName = (post) =>
  `${
    String(post.slug || post._id)
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '') || post._id
  }.html`;
const day = (iso) => new Date(iso).toISOString().slice(0, 10);

const page = (title, main) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)}</title></head>
<body>
<header><a href="/index.html">${escape(siteName)}</a></header>
<main>
${main}
</main>
</body>
</html>
`;

async function readPosts() {
  const cms = createClient({ url, token });
  const fields = (await cms.call('GET /api/collections/:collection/schema', { params: { collection } })).fields ?? [];
  const populate = fields.some((f) => f.name === 'author' && f.type === 'relation') ? ['author'] : [];
  const posts = [];
  for await (const post of cms.collection(collection).all({ status: 'published', sort: '-createdAt', populate })) posts.push(post);
  return posts;
}

async function main() {
  const posts = await readPosts();
  await rm(out, { recursive: true, force: true });
  await mkdir(join(out, 'posts'), { recursive: true });
  const items = [];
  for (const post of posts) {
    const name = fileName(post);
    const by = post.author?.name ? ` by ${escape(post.author.name)}` : '';
    const article = `<article>
<h1>${escape(post.title)}</h1>
<p><time datetime="${escape(post.createdAt)}">${day(post.createdAt)}</time>${by}</p>
${typeof post.body === 'string' ? post.body : ''}
</article>`;
    await writeFile(join(out, 'posts', name), page(post.title, article));
    items.push(`<li><a href="posts/${name}">${escape(post.title)}</a> <time>${day(post.createdAt)}</time></li>`);
  }
  await writeFile(join(out, 'index.html'), page(siteName, `<h1>${escape(siteName)}</h1>\n<ul>\n${items.join('\n')}\n</ul>`));
  console.log(`Wrote ${posts.length} post${posts.length === 1 ? '' : 's'} to ${out}`);
}

main().catch((err) => {
  if (isCmsError(err)) console.error(`The CMS refused (${err.code}, HTTP ${err.status}): ${err.message}`);
  else console.error(err);
  process.exitCode = 1;
});
