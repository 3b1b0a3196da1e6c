import { expect } from 'chai';
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ImportProfile } from '../../plugins/importers/public.js';
import { parseWxr } from '../../plugins/import-wxr/parse-task.js';

const ITEMS = 8000;
const PARAGRAPH = '<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit &amp; sed do eiusmod tempor incididunt ut labore.</p>\n';

/** Writes a ~20 MB WXR export item by item (the generator never holds the file either). */
async function writeLargeWxr(path: string): Promise<void> {
  const out = createWriteStream(path);
  const put = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await put(
    '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" ' +
      'xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">\n<channel>\n' +
      '<wp:wxr_version>1.2</wp:wxr_version>\n<wp:author><wp:author_id>1</wp:author_id><wp:author_login><![CDATA[admin]]></wp:author_login></wp:author>\n' +
      '<wp:category><wp:term_id>1</wp:term_id><wp:category_nicename>news</wp:category_nicename><wp:cat_name><![CDATA[News]]></wp:cat_name></wp:category>\n',
  );
  for (let i = 1; i <= ITEMS; i++) {
    const page = i % 10 === 0;
    const comment =
      i % 4 === 0
        ? `<wp:comment><wp:comment_id>${i}</wp:comment_id><wp:comment_author><![CDATA[Reader ${i}]]></wp:comment_author><wp:comment_content><![CDATA[Nice post ${i}]]></wp:comment_content><wp:comment_approved>1</wp:comment_approved></wp:comment>\n`
        : '';
    await put(
      `<item>\n<title>Post ${i}</title>\n<dc:creator><![CDATA[admin]]></dc:creator>\n<content:encoded><![CDATA[${PARAGRAPH.repeat(20)}]]></content:encoded>\n` +
        `<wp:post_id>${i}</wp:post_id>\n<wp:post_date_gmt>2024-01-01 10:00:00</wp:post_date_gmt>\n<wp:status>publish</wp:status>\n<wp:post_type>${page ? 'page' : 'post'}</wp:post_type>\n` +
        `<category domain="category" nicename="news"><![CDATA[News]]></category>\n<wp:postmeta><wp:meta_key>views</wp:meta_key><wp:meta_value>${i}</wp:meta_value></wp:postmeta>\n` +
        `<wp:postmeta><wp:meta_key>_views</wp:meta_key><wp:meta_value>field_64f0a1b2c3d4e</wp:meta_value></wp:postmeta>\n${comment}</item>\n`,
    );
  }
  await put('</channel>\n</rss>\n');
  out.end();
  await once(out, 'finish');
}

describe('import-wxr: a large export is streamed', function () {
  this.timeout(120000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cms-wxr-large-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('parses a ~20 MB WXR file written on disk into every post, page and comment', async () => {
    const path = join(dir, 'large.xml');
    await writeLargeWxr(path);
    expect(statSync(path).size).to.be.greaterThan(20 * 1024 * 1024);
    const spoolPath = join(dir, 'large.ndjson');
    const result = await parseWxr({
      path,
      filename: 'large.xml',
      workDir: dir,
      spoolPath,
      profile: { encoding: 'utf-8' } as ImportProfile,
      maxDepth: 32,
    });
    expect(result.ok).to.equal(true);
    if (!result.ok) return;
    expect(result.value.blockedReasons).to.deep.equal([]);
    expect(result.value.warnings).to.deep.equal([]);
    expect(result.value.counts).to.include({
      posts: ITEMS - ITEMS / 10,
      pages: ITEMS / 10,
      comments: ITEMS / 4,
      authors: 1,
      categories: 1,
    });
    expect(result.value.acfFields).to.deep.equal(['views']);
    let lines = 0;
    let last = '';
    for await (const line of createInterface({ input: createReadStream(spoolPath) })) {
      lines++;
      last = line;
    }
    expect(lines).to.equal(ITEMS + ITEMS / 4 + 2);
    expect(JSON.parse(last)).to.include({ entity: 'comments', externalId: String(ITEMS) });
  });
});
