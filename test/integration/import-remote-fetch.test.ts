/**
 * Attachments known only by URL: recorded, never fetched, by default; with IMPORT_FETCH_REMOTE
 * (plugins.options.importers.fetchRemote) fetched into the media library from a real HTTP server on
 * loopback — which the SSRF guard refuses unless fetchAllowPrivate is on.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import sharp from 'sharp';
import { isInternalAddress } from '../../plugins/importers/remote-fetch.js';
import { fixturePlugin, startTestKernel, type TestKernel } from '../helpers/kernel.js';

function wxr(base: string, idBase = 0, thumbnail = false): string {
  const item = (
    id: number,
    url: string,
  ) => `<item><title>Picture ${id}</title><wp:post_id>${id}</wp:post_id><wp:post_type><![CDATA[attachment]]></wp:post_type>
<wp:status><![CDATA[inherit]]></wp:status><wp:post_name><![CDATA[picture-${id}]]></wp:post_name><wp:attachment_url><![CDATA[${url}]]></wp:attachment_url></item>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:wp="http://wordpress.org/export/1.2/" xmlns:content="http://purl.org/rss/1.0/modules/content/">
<channel><title>Remote</title><wp:wxr_version>1.2</wp:wxr_version>
<item><title>Hello</title><wp:post_id>${idBase + 1}</wp:post_id><wp:post_type><![CDATA[post]]></wp:post_type><wp:status><![CDATA[publish]]></wp:status><wp:post_name><![CDATA[hello]]></wp:post_name><content:encoded><![CDATA[<p>Hi</p>]]></content:encoded>${
    thumbnail
      ? `<wp:postmeta><wp:meta_key><![CDATA[_thumbnail_id]]></wp:meta_key><wp:meta_value><![CDATA[${idBase + 10}]]></wp:meta_value></wp:postmeta>`
      : ''
  }</item>
${item(idBase + 10, `${base}/pic.png`)}
${item(idBase + 11, `${base}/moved`)}
${item(idBase + 12, `${base}/missing.png`)}
${item(idBase + 13, base.replace('http://', 'http://admin:hunter2@') + '/secret.png')}
</channel></rss>`;
}

describe('importers: attachments known only by URL', function () {
  this.timeout(120000);
  let server: Server;
  let base: string;
  const hits: string[] = [];
  let png: Buffer;

  before(async () => {
    png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#0369a1' } })
      .png()
      .toBuffer();
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/pic.png') res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      else if (req.url === '/moved') res.writeHead(302, { location: '/pic.png' }).end();
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function importInto(t: TestKernel, from = base, thumbnail = false): Promise<{ job: any; mediaAdded: number }> {
    const mediaTotal = async () =>
      ((await (await t.request('/api/media?limit=1', { identity: 'admin' })).json()) as { data: { total: number } }).data.total;
    const before = await mediaTotal();
    const form = new FormData();
    form.append('scaffold', 'true');
    form.append('file', new Blob([wxr(from, from === base ? 0 : 100, thumbnail)]), 'remote.xml');
    const res = await t.request('/api/migration/import', { method: 'POST', body: form, identity: 'admin' });
    const text = await res.text();
    const complete = JSON.parse(/event: complete\ndata: (.+)/.exec(text)?.[1] ?? 'null');
    expect(complete, text.slice(0, 500)).to.be.an('object');
    const job = ((await (await t.request(`/api/importers/jobs/${complete.jobId}`, { identity: 'admin' })).json()) as { data: unknown })
      .data;
    return { job, mediaAdded: (await mediaTotal()) - before };
  }

  it('off by default: the URLs are recorded on the entries and nothing is fetched', async () => {
    const t = await startTestKernel({ plugins: [fixturePlugin('test-identity')] });
    try {
      hits.length = 0;
      const { job, mediaAdded } = await importInto(t);
      expect(job.results.attachments).to.include({ imported: 4, failed: 0 });
      expect(mediaAdded).to.equal(0);
      expect(hits).to.deep.equal([]);
      const items = (
        (await (await t.request('/api/collections/attachments?limit=10&sort=title', { identity: 'admin' })).json()) as {
          data: { items: Array<{ url: string }> };
        }
      ).data.items;
      expect(items.map((i) => i.url)).to.include(`${base}/pic.png`);
    } finally {
      await t.close();
    }
  });

  for (const [how, config] of [
    ['CMS_OUTBOUND_ALLOW_PRIVATE', { outbound: { allowPrivate: true }, plugins: { options: { importers: { fetchRemote: true } } } }],
    ['the deprecated IMPORT_FETCH_ALLOW_PRIVATE', { plugins: { options: { importers: { fetchRemote: true, fetchAllowPrivate: true } } } }],
  ] as const)
    it(`on, with private addresses allowed (${how}): fetched (following a redirect) into the media library; a 404 is a warning`, async () => {
      const t = await startTestKernel({ plugins: [fixturePlugin('test-identity')], config: config as never });
      try {
        hits.length = 0;
        const { job, mediaAdded } = await importInto(t);
        expect(job.results.attachments).to.include({ imported: 4, failed: 0 });
        expect(mediaAdded, 'pic.png and the redirect to it: two attachments, two media records').to.equal(2);
        expect(hits).to.include.members(['/pic.png', '/moved', '/missing.png']);
        const text = job.warnings.map((w: { message: string }) => w.message).join('\n');
        expect(text).to.match(/missing\.png not fetched: the server answered 404/);
        // A URL with credentials is not fetched, and its password never reaches the job's warnings.
        expect(text).to.match(/secret\.png not fetched: URLs with credentials are not fetched/);
        expect(text).to.not.include('hunter2');
        const media = (
          (await (await t.request('/api/media?limit=10', { identity: 'admin' })).json()) as { data: { items: Array<{ mimeType: string }> } }
        ).data.items;
        expect(media.every((m) => m.mimeType === 'image/png')).to.equal(true);
      } finally {
        await t.close();
      }
    });

  it("a post's featured image (_thumbnail_id) is kept and linked: featuredMedia is the fetched attachment's media file", async () => {
    const t = await startTestKernel({
      plugins: [fixturePlugin('test-identity')],
      config: { outbound: { allowPrivate: true }, plugins: { options: { importers: { fetchRemote: true } } } },
    });
    try {
      const { job } = await importInto(t, base, true);
      expect(job.results.posts, JSON.stringify(job.results)).to.include({ imported: 1, failed: 0 });
      const [post] = (
        (await (await t.request('/api/collections/posts?limit=10', { identity: 'admin' })).json()) as {
          data: { items: Array<Record<string, unknown>> };
        }
      ).data.items;
      expect(post?.title).to.equal('Hello');
      expect(post?.featuredImage, 'the WordPress attachment id is kept').to.satisfy((v: unknown) => String(v) === '10');
      const mediaId = post?.featuredMedia;
      expect(mediaId, JSON.stringify(post)).to.be.a('string');
      const media = await t.request(`/api/media/${String(mediaId)}`, { identity: 'admin' });
      expect(media.status).to.equal(200);
      expect(((await media.json()) as { data: { mimeType: string } }).data.mimeType).to.equal('image/png');
    } finally {
      await t.close();
    }
  });

  it('on, with the SSRF guard: loopback is refused before any request, by IP literal and by name', async () => {
    const t = await startTestKernel({
      plugins: [fixturePlugin('test-identity')],
      config: { plugins: { options: { importers: { fetchRemote: true } } } },
    });
    try {
      hits.length = 0;
      const { job, mediaAdded } = await importInto(t);
      expect(mediaAdded).to.equal(0);
      expect(hits, 'the server never saw a request').to.deep.equal([]);
      expect(job.warnings.map((w: { message: string }) => w.message).join('\n')).to.match(/internal address/);
      // A name that resolves to loopback is refused at connect time by the guarded DNS lookup.
      const byName = await importInto(t, base.replace('127.0.0.1', 'localhost'));
      expect(byName.mediaAdded).to.equal(0);
      expect(hits, 'still no request').to.deep.equal([]);
      expect(byName.job.warnings.map((w: { message: string }) => w.message).join('\n')).to.match(
        /localhost resolves to an internal address/,
      );
    } finally {
      await t.close();
    }
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      'not-an-ip',
    ]) {
      expect(isInternalAddress(a), a).to.equal(true);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8']) expect(isInternalAddress(a), a).to.equal(false);
  });
});
