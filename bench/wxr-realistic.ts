/**
 * A realistic WordPress export for the import bench, generated on disk at bench time (never committed):
 * by default 20,000 posts with ~4 KB of block-editor HTML each (headings, paragraphs with links and
 * inline markup, lists, images with srcset, figures, the `<!-- wp:... -->` block comments WordPress
 * writes), 15,000 comments (threaded: some answer others), 100,000 postmeta (edit locks, thumbnails,
 * serialized PHP arrays as plugins store them, SEO and custom fields), 40 authors, 60 categories and
 * 400 tags: about 80 MB, shaped after `wp-theme-unit-test-data.xml` in the shared fixtures.
 * Deterministic (a seeded generator), streamed to the file with back-pressure (never held in memory).
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

export interface RealisticWxr {
  posts: number;
  comments: number;
  postmeta: number;
  authors: number;
  categories: number;
  tags: number;
}

/** BENCH_REALISTIC_POSTS scales posts, comments and postmeta alike (e.g. 2000: a tenth). */
const SCALE = Number(process.env.BENCH_REALISTIC_POSTS ?? 20_000) / 20_000;
export const REALISTIC_WXR: RealisticWxr = {
  posts: Math.round(20_000 * SCALE),
  comments: Math.round(15_000 * SCALE),
  postmeta: Math.round(100_000 * SCALE),
  authors: 40,
  categories: 60,
  tags: 400,
};

/** Entities the importer creates from it: posts, comments, authors, categories and tags. */
export const realisticEntities = (r: RealisticWxr) => r.posts + r.comments + r.authors + r.categories + r.tags;

const WORDS = (
  'the of and to in is was for on that with as by at from his her they this an be which or have one had not but what all were ' +
  'when we there can been has more if will would who so no time people year way day man thing woman life child world school ' +
  'state family student group country problem hand part place case week company system program question work government ' +
  'number night point home water room mother area money story fact month lot right study book eye job word business issue ' +
  'side kind head house service friend father power hour game line end member law car city community name president team ' +
  'minute idea kid body information back parent face others level office door health person art war history party result'
).split(' ');

/** A small seeded generator (mulberry32): the same file every run. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function writeRealisticWxr(path: string, r: RealisticWxr = REALISTIC_WXR): Promise<void> {
  const rnd = random(22);
  const int = (n: number) => Math.floor(rnd() * n);
  const words = (n: number) => Array.from({ length: n }, () => WORDS[int(WORDS.length)]).join(' ');
  const sentence = () => {
    const s = words(5 + int(9));
    return s.charAt(0).toUpperCase() + s.slice(1) + '.';
  };
  const cdata = (s: string) => `<![CDATA[${s}]]>`;
  const date = (i: number) => {
    const d = new Date(Date.UTC(2012, 0, 1) + i * 3 * 3600 * 1000 + int(3600) * 1000);
    return d.toISOString().slice(0, 19).replace('T', ' ');
  };
  const paragraph = () => {
    const parts = [sentence(), sentence(), ...(rnd() < 0.4 ? [sentence()] : [])];
    if (rnd() < 0.5) parts[1] = `<a href="https://example.org/${words(2).replace(/ /g, '-')}/">${parts[1]}</a>`;
    if (rnd() < 0.4) parts[0] = `<strong>${parts[0]}</strong>`;
    if (rnd() < 0.2) parts[1] = `<em>${parts[1]}</em>`;
    return `<!-- wp:paragraph -->\n<p>${parts.join(' ')}</p>\n<!-- /wp:paragraph -->`;
  };
  const image = (i: number) =>
    `<!-- wp:image {"id":${i},"sizeSlug":"large"} -->\n<figure class="wp-block-image size-large"><img src="https://example.org/wp-content/uploads/2019/${String((i % 12) + 1).padStart(2, '0')}/photo-${i}-1024x683.jpg" alt="${words(4)}" class="wp-image-${i}" srcset="https://example.org/wp-content/uploads/photo-${i}-1024x683.jpg 1024w, https://example.org/wp-content/uploads/photo-${i}-300x200.jpg 300w" sizes="(max-width: 1024px) 100vw, 1024px" /><figcaption>${sentence()}</figcaption></figure>\n<!-- /wp:image -->`;
  const list = () =>
    `<!-- wp:list -->\n<ul>${Array.from({ length: 3 + int(4) }, () => `<li>${words(5 + int(6))}</li>`).join('')}</ul>\n<!-- /wp:list -->`;
  const content = (i: number) => {
    const blocks: string[] = [];
    for (let b = 0; b < 5; b++) {
      if (b === 2) blocks.push(`<!-- wp:heading -->\n<h2>${words(4)}</h2>\n<!-- /wp:heading -->`);
      else if (b === 3 && rnd() < 0.6) blocks.push(image(i * 10 + b));
      else if (b === 4 && rnd() < 0.5) blocks.push(list());
      else blocks.push(paragraph());
    }
    return blocks.join('\n\n');
  };

  const out = createWriteStream(path);
  const write = async (s: string) => {
    if (!out.write(s)) await once(out, 'drain');
  };
  await write(`<?xml version="1.0" encoding="UTF-8" ?>
<!-- This is a WordPress eXtended RSS file generated by WordPress as an export of your site. -->
<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:wfw="http://wellformedweb.org/CommentAPI/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel>
	<title>Realistic Bench Site</title>
	<link>https://example.org</link>
	<description>Just another WordPress site</description>
	<pubDate>Mon, 02 Nov 2026 10:00:00 +0000</pubDate>
	<language>en-US</language>
	<wp:wxr_version>1.2</wp:wxr_version>
	<wp:base_site_url>https://example.org</wp:base_site_url>
	<wp:base_blog_url>https://example.org</wp:base_blog_url>
`);
  for (let a = 1; a <= r.authors; a++)
    await write(
      `\t<wp:author><wp:author_id>${a}</wp:author_id><wp:author_login>${cdata(`author${a}`)}</wp:author_login><wp:author_email>${cdata(`author${a}@example.org`)}</wp:author_email><wp:author_display_name>${cdata(`Author ${a} ${words(1)}`)}</wp:author_display_name><wp:author_first_name>${cdata(words(1))}</wp:author_first_name><wp:author_last_name>${cdata(words(1))}</wp:author_last_name></wp:author>\n`,
    );
  for (let c = 1; c <= r.categories; c++)
    await write(
      `\t<wp:category><wp:term_id>${c}</wp:term_id><wp:category_nicename>${cdata(`category-${c}`)}</wp:category_nicename><wp:category_parent>${cdata(c > 10 ? `category-${(c % 10) + 1}` : '')}</wp:category_parent><wp:cat_name>${cdata(`Category ${c}`)}</wp:cat_name><wp:category_description>${cdata(sentence())}</wp:category_description></wp:category>\n`,
    );
  for (let t = 1; t <= r.tags; t++)
    await write(
      `\t<wp:tag><wp:term_id>${1000 + t}</wp:term_id><wp:tag_slug>${cdata(`tag-${t}`)}</wp:tag_slug><wp:tag_name>${cdata(`Tag ${t} ${words(1)}`)}</wp:tag_name></wp:tag>\n`,
    );

  // Comments and postmeta spread over the posts (whole numbers per post, the totals exact).
  const share = (total: number, i: number) => Math.floor((total * (i + 1)) / r.posts) - Math.floor((total * i) / r.posts);
  let commentId = 0;
  for (let i = 0; i < r.posts; i++) {
    const id = 100 + i;
    const title = `${sentence().slice(0, -1)} ${i}`;
    const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    const author = `author${(i % r.authors) + 1}`;
    const metas: Array<[string, string]> = [];
    const metaCount = share(r.postmeta, i);
    const pool: Array<() => [string, string]> = [
      () => ['_edit_last', String((i % r.authors) + 1)],
      () => ['_edit_lock', `${1600000000 + i}:${(i % r.authors) + 1}`],
      () => ['_thumbnail_id', String(50000 + i)],
      () => ['_yoast_wpseo_metadesc', sentence()],
      () => ['_wp_old_slug', `${slug}-old`],
      () => ['enclosure', `https://example.org/audio/episode-${i}.mp3\n${1000000 + i}\naudio/mpeg`],
      () => ['_wp_page_template', 'default'],
      () => ['subtitle', sentence()],
      () => ['_links_to_settings', `a:3:{s:6:"target";s:6:"_blank";s:5:"views";i:${i};s:4:"tags";a:2:{i:0;s:3:"one";i:1;s:3:"two";}}`],
    ];
    for (let m = 0; m < metaCount; m++) metas.push(pool[(i + m) % pool.length]!());
    const cats = [`category-${(i % r.categories) + 1}`, `category-${((i * 7) % r.categories) + 1}`];
    const tags = [`tag-${(i % r.tags) + 1}`, `tag-${((i * 13) % r.tags) + 1}`, `tag-${((i * 31) % r.tags) + 1}`];
    let item = `\t<item>
\t\t<title>${cdata(title)}</title>
\t\t<link>https://example.org/${date(i).slice(0, 10).replace(/-/g, '/')}/${slug}/</link>
\t\t<pubDate>Mon, 02 Nov 2026 10:00:00 +0000</pubDate>
\t\t<dc:creator>${cdata(author)}</dc:creator>
\t\t<guid isPermaLink="false">https://example.org/?p=${id}</guid>
\t\t<description></description>
\t\t<content:encoded>${cdata(content(i))}</content:encoded>
\t\t<excerpt:encoded>${cdata(rnd() < 0.3 ? sentence() : '')}</excerpt:encoded>
\t\t<wp:post_id>${id}</wp:post_id>
\t\t<wp:post_date>${cdata(date(i))}</wp:post_date>
\t\t<wp:post_date_gmt>${cdata(date(i))}</wp:post_date_gmt>
\t\t<wp:post_modified>${cdata(date(i + 5))}</wp:post_modified>
\t\t<wp:post_modified_gmt>${cdata(date(i + 5))}</wp:post_modified_gmt>
\t\t<wp:comment_status>${cdata('open')}</wp:comment_status>
\t\t<wp:ping_status>${cdata('open')}</wp:ping_status>
\t\t<wp:post_name>${cdata(slug)}</wp:post_name>
\t\t<wp:status>${cdata(i % 20 === 0 ? 'draft' : 'publish')}</wp:status>
\t\t<wp:post_parent>0</wp:post_parent>
\t\t<wp:menu_order>0</wp:menu_order>
\t\t<wp:post_type>${cdata('post')}</wp:post_type>
\t\t<wp:post_password>${cdata('')}</wp:post_password>
\t\t<wp:is_sticky>${i % 500 === 0 ? 1 : 0}</wp:is_sticky>
`;
    for (const c of cats)
      item += `\t\t<category domain="category" nicename="${c}">${cdata(c.replace('category-', 'Category '))}</category>\n`;
    for (const t of tags) item += `\t\t<category domain="post_tag" nicename="${t}">${cdata(t.replace('tag-', 'Tag '))}</category>\n`;
    for (const [key, value] of metas)
      item += `\t\t<wp:postmeta>\n\t\t\t<wp:meta_key>${cdata(key)}</wp:meta_key>\n\t\t\t<wp:meta_value>${cdata(value)}</wp:meta_value>\n\t\t</wp:postmeta>\n`;
    const first = commentId + 1;
    for (let k = share(r.comments, i); k > 0; k--) {
      commentId++;
      const parent = commentId > first && rnd() < 0.3 ? commentId - 1 : 0;
      item += `\t\t<wp:comment>
\t\t\t<wp:comment_id>${commentId}</wp:comment_id>
\t\t\t<wp:comment_author>${cdata(`${words(1)} ${words(1)}`)}</wp:comment_author>
\t\t\t<wp:comment_author_email>${cdata(`reader${commentId % 997}@example.net`)}</wp:comment_author_email>
\t\t\t<wp:comment_author_url>https://reader${commentId % 997}.example.net/</wp:comment_author_url>
\t\t\t<wp:comment_author_IP>${cdata(`192.0.2.${commentId % 250}`)}</wp:comment_author_IP>
\t\t\t<wp:comment_date>${cdata(date(i + 2))}</wp:comment_date>
\t\t\t<wp:comment_date_gmt>${cdata(date(i + 2))}</wp:comment_date_gmt>
\t\t\t<wp:comment_content>${cdata(`${sentence()} ${sentence()}`)}</wp:comment_content>
\t\t\t<wp:comment_approved>${cdata(commentId % 10 === 0 ? '0' : '1')}</wp:comment_approved>
\t\t\t<wp:comment_type>${cdata('comment')}</wp:comment_type>
\t\t\t<wp:comment_parent>${parent}</wp:comment_parent>
\t\t\t<wp:comment_user_id>0</wp:comment_user_id>
\t\t\t<wp:commentmeta>
\t\t\t\t<wp:meta_key>${cdata('akismet_result')}</wp:meta_key>
\t\t\t\t<wp:meta_value>${cdata('false')}</wp:meta_value>
\t\t\t</wp:commentmeta>
\t\t</wp:comment>
`;
    }
    await write(item + '\t</item>\n');
  }
  await write('</channel>\n</rss>\n');
  out.end();
  await once(out, 'finish');
}
