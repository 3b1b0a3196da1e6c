import { expect } from 'chai';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { as, dataOf } from '../helpers/content.js';
import { fixturePlugin, type TestResponse, useTestKernel } from '../helpers/kernel.js';
import { imageBytes, uploadFile } from '../helpers/media-upload.js';

/**
 * What a user sees of an upload's name and emptiness, on the real upload route (SQLite, local storage):
 * a 0-byte file is refused and nothing is stored; a file keeps its own name whatever its content, and
 * an extension that contradicts the content dangerously is refused naming both.
 */

const SVG = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
const HTML = Buffer.from('<!DOCTYPE html><html><body><script>alert(1)</script></body></html>');
const TEXT = Buffer.from('just some notes\nsecond line\n');

/** Every file under a folder (recursive), relative names. */
function filesUnder(dir: string, prefix = ''): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

describe("media uploads: empty files and the file's own name (SQLite)", function () {
  this.timeout(60000);
  const t = useTestKernel({ plugins: [fixturePlugin('test-identity')] });

  const stored = () => filesUnder(join(t.dataDir, 'media'));
  const tempUploads = () => filesUnder(join(t.dataDir, 'tmp')).filter((n) => n.startsWith('media-upload-'));
  const total = async () => (await dataOf(await t.request('/api/media', { identity: 'editor' }))).total as number;

  /** A refused upload: the status and code, and nothing stored (no record, no file, no temporary file). */
  async function refused(res: TestResponse, status: number, code: string): Promise<any> {
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).to.equal(status);
    expect(body).to.include({ success: false, error: code });
    return body;
  }

  async function nothingStoredBy(upload: () => Promise<void>): Promise<void> {
    const [count, files] = [await total(), stored()];
    await upload();
    expect(await total(), 'media records').to.equal(count);
    expect(stored(), 'files in storage').to.deep.equal(files);
    expect(tempUploads(), 'temporary files').to.deep.equal([]);
  }

  describe('a 0-byte file', function () {
    it('empty.png is refused with 400 EMPTY_FILE "The file is empty", and nothing is stored', async function () {
      await nothingStoredBy(async () => {
        const body = await refused(await uploadFile(t, Buffer.alloc(0), 'empty.png'), 400, 'EMPTY_FILE');
        expect(body.message).to.equal('The file is empty');
      });
      expect((await dataOf(await t.request('/api/media?search=empty', { identity: 'editor' }))).items).to.deep.equal([]);
    });

    it('is refused whatever its name, in a folder too, and through the mediaClient SDK', async function () {
      const folder = await dataOf(await as(t, 'editor').post('/api/media/folders', { name: 'Empties' }), 201);
      await nothingStoredBy(async () => {
        await refused(await uploadFile(t, Buffer.alloc(0), 'empty.txt'), 400, 'EMPTY_FILE');
        await refused(await uploadFile(t, Buffer.alloc(0), 'no-extension'), 400, 'EMPTY_FILE');
        await refused(await uploadFile(t, Buffer.alloc(0), 'empty.png', { fields: { folderId: folder._id } }), 400, 'EMPTY_FILE');
        const client = t.kernel.container.resolve<(identity?: any) => any>('mediaClient')();
        const err = await client.upload('empty.png', Buffer.alloc(0)).then(
          () => null,
          (e: any) => e,
        );
        expect(err).to.include({ code: 'EMPTY_FILE', status: 400, message: 'The file is empty' });
      });
    });

    it('a one-byte file is not empty: it is stored', async function () {
      const item = await dataOf(await uploadFile(t, Buffer.from('x'), 'one-byte.txt'), 201);
      expect(item).to.include({ filename: 'one-byte.txt', size: 1, mimeType: 'text/plain' });
    });
  });

  describe('the file keeps its own name', function () {
    it('notes.png holding text keeps its name and is stored as text/plain (served so, under its name)', async function () {
      const item = await dataOf(await uploadFile(t, TEXT, 'notes.png'), 201);
      expect(item).to.include({ filename: 'notes.png', mimeType: 'text/plain', size: TEXT.length });
      expect(item.width).to.equal(undefined);
      const file = await t.request(item.url);
      expect(file.status).to.equal(200);
      expect(file.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
      expect(file.headers.get('content-disposition')).to.include('filename="notes.png"');
      expect(Buffer.from(await file.arrayBuffer()).equals(TEXT)).to.equal(true);
      expect((await dataOf(await t.request(`/api/media/${item._id}`, { identity: 'editor' }))).filename).to.equal('notes.png');
    });

    it('scan.pdf holding a JPEG keeps its name; the type, dimensions and thumbnails follow the content', async function () {
      const jpeg = await imageBytes(400, 300, 'jpeg');
      const item = await dataOf(await uploadFile(t, jpeg, 'scan.pdf'), 201);
      expect(item).to.include({ filename: 'scan.pdf', mimeType: 'image/jpeg', width: 400, height: 300 });
      expect(Object.keys(item.thumbnails)).to.deep.equal(['sm']);
    });

    it('keeps the case and the spelling of the name (Photo.PNG, several dots, no extension)', async function () {
      const png = await imageBytes(8, 8);
      expect((await dataOf(await uploadFile(t, png, 'Photo.PNG'), 201)).filename).to.equal('Photo.PNG');
      expect((await dataOf(await uploadFile(t, png, 'holiday.final.v2.jpeg'), 201)).filename).to.equal('holiday.final.v2.jpeg');
      expect(await dataOf(await uploadFile(t, TEXT, 'README'), 201)).to.include({ filename: 'README', mimeType: 'text/plain' });
    });

    it('active content under its own extension is stored as such: logo.svg, page.html', async function () {
      expect(await dataOf(await uploadFile(t, SVG, 'logo.svg'), 201)).to.include({ filename: 'logo.svg', mimeType: 'image/svg+xml' });
      expect(await dataOf(await uploadFile(t, HTML, 'page.html'), 201)).to.include({ filename: 'page.html', mimeType: 'text/html' });
    });
  });

  describe('an extension that contradicts the content dangerously is refused (415 MEDIA_TYPE_MISMATCH naming both)', function () {
    const cases: Array<[string, () => Promise<Buffer> | Buffer, string, string]> = [
      ['logo.png', () => SVG, 'image/png', 'image/svg+xml'],
      ['page.txt', () => HTML, 'text/plain', 'text/html'],
      ['notes.html', () => TEXT, 'text/html', 'text/plain'],
      ['picture.svg', () => imageBytes(8, 8), 'image/svg+xml', 'image/png'],
      ['invoice.exe', () => imageBytes(8, 8), 'program', 'image/png'],
      ['install.sh', () => TEXT, 'script', 'text/plain'],
      ['trailing-dot.html.', () => TEXT, 'text/html', 'text/plain'],
    ];
    for (const [name, bytes, means, detected] of cases) {
      it(`${name} holding ${detected}`, async function () {
        const content = await bytes();
        await nothingStoredBy(async () => {
          const body = await refused(await uploadFile(t, content, name), 415, 'MEDIA_TYPE_MISMATCH');
          expect(body.message).to.include(`'${name.replace(/\.$/, '')}'`);
          expect(body.message).to.include(means);
          expect(body.message).to.include(detected);
          expect(body).to.include({ detectedType: detected });
        });
      });
    }

    it('a type outside the allow list stays 415 UNSUPPORTED_MEDIA_TYPE, whatever the name', async function () {
      await nothingStoredBy(async () => {
        await refused(
          await uploadFile(t, Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe, 0x00, 0x10, 0x80]), 'photo.png'),
          415,
          'UNSUPPORTED_MEDIA_TYPE',
        );
      });
    });
  });

  describe('renaming (PATCH) follows the same rule', function () {
    it('keeps the new name as given; refuses one whose extension contradicts the content dangerously', async function () {
      const item = await dataOf(await uploadFile(t, TEXT, 'report.txt'), 201);
      const renamed = await dataOf(await as(t, 'editor').patch(`/api/media/${item._id}`, { filename: 'Quarterly report.md' }));
      expect(renamed).to.include({ filename: 'Quarterly report.md', mimeType: 'text/plain', url: item.url });
      const refusal = await refused(
        await as(t, 'editor').patch(`/api/media/${item._id}`, { filename: 'report.html' }),
        415,
        'MEDIA_TYPE_MISMATCH',
      );
      expect(refusal.message).to.include('text/html');
      expect(refusal.message).to.include('text/plain');
      expect((await dataOf(await t.request(`/api/media/${item._id}`, { identity: 'editor' }))).filename).to.equal('Quarterly report.md');
    });
  });
});
