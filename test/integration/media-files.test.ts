import { expect } from 'chai';
import { request } from 'node:http';
import { mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dataOf } from '../helpers/content.js';
import { fixturePlugin, useTestKernel } from '../helpers/kernel.js';
import { imageBytes, uploadFile } from '../helpers/media-upload.js';
import { DB_VARIANTS } from '../helpers/services.js';

const IDENTITY = fixturePlugin('test-identity');

/** A GET with the path sent exactly as written (fetch would resolve dot segments first). */
function rawGet(base: string, path: string): Promise<{ status: number; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('latin1')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

for (const variant of DB_VARIANTS) {
  describe(`media files: /files/ (${variant.name})`, function () {
    this.timeout(60000);
    let text: any;
    const TEXT = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyz\n');
    const t = useTestKernel(
      { db: variant.name, plugins: [IDENTITY] },
      {
        variant,
        seed: async () => {
          text = await dataOf(await uploadFile(t, TEXT, 'Résumé été.txt'), 201);
        },
      },
    );

    it("serves the bytes with the record's type, length, a safe inline disposition and protective headers", async function () {
      const res = await t.request(text.url);
      expect(res.status).to.equal(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(TEXT)).to.equal(true);
      expect(res.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
      expect(res.headers.get('content-length')).to.equal(String(TEXT.length));
      expect(res.headers.get('content-disposition')).to.equal(
        `inline; filename="R_sum_ _t_.txt"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%C3%A9t%C3%A9.txt`,
      );
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(res.headers.get('content-security-policy')).to.equal("default-src 'none'; sandbox");
      expect(res.headers.get('accept-ranges')).to.equal('bytes');
      expect(res.headers.get('cache-control')).to.equal('public, max-age=3600');
      const head = await t.request(text.url, { method: 'HEAD' });
      expect(head.status).to.equal(200);
      expect(head.headers.get('content-length')).to.equal(String(TEXT.length));
      expect(head.headers.get('etag')).to.equal(res.headers.get('etag'));
    });

    it('answers 304 to a matching If-None-Match (weak or in a list) and 200 to another', async function () {
      const etag = (await t.request(text.url)).headers.get('etag')!;
      expect(etag).to.match(/^(W\/)?".+"$/);
      for (const inm of [etag, `W/${etag.replace(/^W\//, '')}`, `"other", ${etag}`, '*']) {
        const res = await t.request(text.url, { headers: { 'if-none-match': inm } });
        expect(res.status, inm).to.equal(304);
        expect(await res.text()).to.equal('');
        expect(res.headers.get('etag')).to.equal(etag);
      }
      expect((await t.request(text.url, { headers: { 'if-none-match': '"stale"' } })).status).to.equal(200);
    });

    it('serves one byte range with 206 and Content-Range; 416 when unsatisfiable; several ranges or a stale If-Range give the whole file', async function () {
      const size = TEXT.length;
      const range = async (value: string, extra: Record<string, string> = {}) =>
        t.request(text.url, { headers: { range: value, ...extra } });
      const first = await range('bytes=0-9');
      expect(first.status).to.equal(206);
      expect(first.headers.get('content-range')).to.equal(`bytes 0-9/${size}`);
      expect(first.headers.get('content-length')).to.equal('10');
      expect(await first.text()).to.equal('0123456789');
      const open = await range('bytes=30-');
      expect(open.status).to.equal(206);
      expect(await open.text()).to.equal(TEXT.subarray(30).toString());
      const suffix = await range('bytes=-4');
      expect(await suffix.text()).to.equal('xyz\n');
      const clamped = await range(`bytes=${size - 2}-99999`);
      expect(clamped.headers.get('content-range')).to.equal(`bytes ${size - 2}-${size - 1}/${size}`);
      for (const bad of [`bytes=${size}-`, 'bytes=9999-10000', 'bytes=-0']) {
        const res = await range(bad);
        expect(res.status, bad).to.equal(416);
        expect(res.headers.get('content-range')).to.equal(`bytes */${size}`);
        expect((await res.json()).error).to.equal('RANGE_NOT_SATISFIABLE');
      }
      const several = await range('bytes=0-1,4-5');
      expect(several.status).to.equal(200);
      expect(await several.text()).to.equal(TEXT.toString());
      const etag = first.headers.get('etag')!;
      expect((await range('bytes=0-1', { 'if-range': etag })).status).to.equal(206);
      expect((await range('bytes=0-1', { 'if-range': '"stale"' })).status).to.equal(200);
    });

    it('never renders SVG, HTML or other markup inline: they are attachments; images, PDF and text are inline', async function () {
      const svg = await dataOf(
        await uploadFile(t, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>'), 'x.svg'),
        201,
      );
      const html = await dataOf(await uploadFile(t, Buffer.from('<html><script>alert(1)</script></html>'), 'x.html'), 201);
      const json = await dataOf(await uploadFile(t, Buffer.from('{"a":1}'), 'x.json'), 201);
      const png = await dataOf(await uploadFile(t, await imageBytes(20, 20), 'x.png'), 201);
      const disposition = async (url: string) => {
        const res = await t.request(url);
        expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
        expect(res.headers.get('content-security-policy')).to.equal("default-src 'none'; sandbox");
        return { type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition')!.split(';')[0] };
      };
      expect(await disposition(svg.url)).to.deep.equal({ type: 'image/svg+xml; charset=utf-8', disposition: 'attachment' });
      expect(await disposition(html.url)).to.deep.equal({ type: 'text/html; charset=utf-8', disposition: 'attachment' });
      expect(await disposition(json.url)).to.deep.equal({ type: 'application/json; charset=utf-8', disposition: 'attachment' });
      expect(await disposition(png.url)).to.deep.equal({ type: 'image/png', disposition: 'inline' });
    });

    it('private media need media:read in their tenant (401 guest, 403 without the permission, 404 in another tenant); thumbnails too', async function () {
      const item = await dataOf(await uploadFile(t, await imageBytes(400, 200), 'secret.png', { fields: { private: 'true' } }), 201);
      expect(item.private).to.equal(true);
      expect(item.url).to.match(/^\/files\/private\/default\//);
      for (const url of [item.url, item.thumbnails.sm.url]) {
        const guest = await t.request(url);
        expect(guest.status).to.equal(401);
        expect((await guest.json()).error).to.equal('AUTHENTICATION_REQUIRED');
        expect((await t.request(url, { identity: 'nobody' })).status).to.equal(403);
        expect((await t.request(url, { identity: 'viewer', headers: { 'x-test-tenant': 'elsewhere' } })).status).to.equal(404);
        const ok = await t.request(url, { identity: 'viewer' });
        expect(ok.status).to.equal(200);
        expect(ok.headers.get('cache-control')).to.equal('private, no-store');
      }
      // A public item is public to everyone, whatever the tenant.
      expect((await t.request(text.url, { headers: { 'x-test-tenant': 'elsewhere' }, identity: 'nobody' })).status).to.equal(200);
    });

    it('refuses traversal before any lookup: .., encoded dots and slashes, absolute paths, backslashes, NUL bytes (400 or 404, never a file outside)', async function () {
      const attempts = [
        '/files/../../../../etc/passwd',
        '/files/default/../../../../etc/passwd',
        '/files/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
        '/files/default/..%2F..%2F..%2F..%2Fetc%2Fpasswd',
        '/files/%2Fetc%2Fpasswd',
        '/files//etc/passwd',
        '/files/%252e%252e/%252e%252e/etc/passwd',
        '/files/default\\..\\..\\..\\etc\\passwd',
        '/files/C:/Windows/win.ini',
        `${text.url}%00.png`,
        '/files/%00',
        '/files/.hidden',
        '/files/',
      ];
      for (const path of attempts) {
        const res = await rawGet(t.url, path);
        expect([400, 404], `${path}: ${res.status}`).to.include(res.status);
        expect(res.body, path).to.not.match(/root:|\[fonts\]/);
      }
      const encoded = await rawGet(t.url, '/files/default/..%2F..%2F..%2F..%2Fetc%2Fpasswd');
      expect(encoded.status).to.equal(400);
      expect(JSON.parse(encoded.body).error).to.equal('MEDIA_PATH_INVALID');
    });

    it('does not follow a symbolic link planted in the media folder', async function () {
      const outside = mkdtempSync(join(tmpdir(), 'cms-outside-'));
      try {
        writeFileSync(join(outside, 'secret.txt'), 'TOP SECRET CONTENT');
        const victim = await dataOf(await uploadFile(t, Buffer.from('innocent'), 'victim.txt'), 201);
        const onDisk = join(t.dataDir, 'media', ...victim.url.slice('/files/'.length).split('/'));
        unlinkSync(onDisk);
        symlinkSync(join(outside, 'secret.txt'), onDisk);
        const res = await t.request(victim.url);
        expect([400, 404]).to.include(res.status);
        expect(await res.text()).to.not.include('TOP SECRET');
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });

    it('an unknown path is 404, and no other method is served', async function () {
      const res = await t.request('/files/default/2026/01/nothing-here.png');
      expect(res.status).to.equal(404);
      expect((await t.request(text.url, { method: 'DELETE', identity: 'admin' })).status).to.equal(405);
    });
  });
}

describe('media files: inline types by configuration', function () {
  this.timeout(60000);
  const t = useTestKernel({ plugins: [IDENTITY], config: { plugins: { options: { media: { inlineTypes: ['image/svg+xml'] } } } } });

  it('an operator may let SVG render inline; the sandbox CSP still applies', async function () {
    const svg = await dataOf(await uploadFile(t, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>'), 'x.svg'), 201);
    const res = await t.request(svg.url);
    expect(res.headers.get('content-disposition')).to.match(/^inline;/);
    expect(res.headers.get('content-security-policy')).to.equal("default-src 'none'; sandbox");
  });
});
