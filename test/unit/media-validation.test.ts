import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ValidationError } from '../../kernel/errors.js';
import { decodeText, detectType } from '../../plugins/media/detect-type.js';
import { MediaPathInvalidError, MediaTypeMismatchError } from '../../plugins/media/errors.js';
import {
  DEFAULT_ALLOWED_TYPES,
  DEFAULT_MAX_UPLOAD_MB,
  mediaOptionsSchema,
  readMediaEnv,
  storageType,
  uploadLimits,
} from '../../plugins/media/media-options.js';
import { pluginOptions } from '../helpers/plugin-options.js';
import { confinePath, storagePath, thumbnailParts, thumbnailPath } from '../../plugins/media/media-paths.js';
import { uploadFields } from '../../plugins/media/media-service.js';
import { assertNameFitsContent, nameConflict } from '../../plugins/media/name-policy.js';
import { contentDisposition, keptName, slugOf } from '../../plugins/media/safe-names.js';
import { contentTypeHeader, servedInline, typeAllowed } from '../../plugins/media/type-policy.js';

// A 1x1 transparent PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** The media service's upload checks: type detection from bytes, the name policy, limits, names and paths. */
/** plugins.options.media (`raw`) with the MEDIA_* variables the kernel mapped (`env`) over it, as the kernel merges them. */
const parseMediaOptions = (raw: unknown, env: Record<string, unknown> = {}) =>
  pluginOptions('media', mediaOptionsSchema, readMediaEnv, raw, env);

describe('unit: media upload validation and metadata', () => {
  let dir: string;
  const file = (name: string, content: string | Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  const jsonCheck = async (path: string) => {
    try {
      JSON.parse((await import('node:fs')).readFileSync(path, 'utf8'));
      return true;
    } catch {
      return false;
    }
  };
  const detect = (name: string, content: string | Buffer) => detectType(file(name, content), name, Buffer.byteLength(content), jsonCheck);

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cms-unit-media-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('detectType (from the content, never the client)', () => {
    it('recognises a PNG by its signature whatever its name', async () => {
      assert.deepEqual(await detect('photo.jpg', PNG), { mimeType: 'image/png', ext: 'png' });
      assert.deepEqual(await detect('noext', PNG), { mimeType: 'image/png', ext: 'png' });
    });

    it('tells SVG and HTML apart from plain text, past an XML prolog and comments', async () => {
      assert.equal(
        (await detect('a.txt', '<?xml version="1.0"?>\n<!-- c -->\n<svg xmlns="http://www.w3.org/2000/svg"></svg>')).mimeType,
        'image/svg+xml',
      );
      assert.equal((await detect('a.txt', '<!DOCTYPE html><html><body>hi</body></html>')).mimeType, 'text/html');
      assert.equal((await detect('a.txt', '  <script>alert(1)</script>')).mimeType, 'text/html');
      assert.equal((await detect('a.txt', 'just words < and > here')).mimeType, 'text/plain');
    });

    it('JSON must parse to count as JSON; CSV is taken from the extension of a text file', async () => {
      assert.deepEqual(await detect('data.json', '{"a": [1, 2]}'), { mimeType: 'application/json', ext: 'json' });
      assert.deepEqual(await detect('data.json', '{"a": [1, 2'), { mimeType: 'text/plain', ext: 'txt' });
      assert.deepEqual(await detect('t.csv', 'a,b\n1,2\n'), { mimeType: 'text/csv', ext: 'csv' });
    });

    it('binary without a signature is octet-stream; an empty file is plain text', async () => {
      assert.deepEqual(await detect('blob.dat', Buffer.from([0x00, 0x01, 0x02, 0xff, 0x00])), {
        mimeType: 'application/octet-stream',
        ext: 'bin',
      });
      assert.deepEqual(await detect('empty.txt', ''), { mimeType: 'text/plain', ext: 'txt' });
    });

    it('decodeText accepts UTF-8 (BOM dropped) and refuses NUL or invalid bytes', () => {
      assert.equal(decodeText(Buffer.from('\uFEFFhéllo', 'utf8'), false), 'héllo');
      assert.equal(decodeText(Buffer.from([0x68, 0x00, 0x69]), false), null);
      assert.equal(decodeText(Buffer.from([0x68, 0xc3]), false), null, 'a cut sequence is invalid in a complete file');
      assert.equal(decodeText(Buffer.from([0x68, 0xc3]), true), 'h', 'but fine at the end of a truncated head');
    });
  });

  describe('name policy (415 MEDIA_TYPE_MISMATCH)', () => {
    it('refuses an active or executable extension on content of another type, naming both', () => {
      assert.match(nameConflict('notes.html', 'text/plain')!, /text\/html.*text\/plain/);
      assert.ok(nameConflict('invoice.exe', 'application/pdf'));
      assert.ok(nameConflict('run.sh', 'text/plain'), 'scripts are refused whatever they hold');
      assert.throws(
        () => assertNameFitsContent('Page.HTML', 'text/plain'),
        (err: unknown) =>
          err instanceof MediaTypeMismatchError &&
          err.status === 415 &&
          err.extra.extension === 'html' &&
          err.extra.detectedType === 'text/plain',
      );
    });

    it('refuses script-capable content under an inert extension', () => {
      assert.match(nameConflict('logo.png', 'image/svg+xml')!, /\.svg/);
      assert.ok(nameConflict('page.txt', 'text/html'));
    });

    it('allows matching names, harmless disagreements and unknown or missing extensions', () => {
      assert.equal(nameConflict('logo.svg', 'image/svg+xml'), null);
      assert.equal(nameConflict('index.htm', 'text/html'), null);
      assert.equal(nameConflict('scan.pdf', 'image/jpeg'), null);
      assert.equal(nameConflict('README', 'text/html'), null);
      assert.equal(nameConflict('thing.weird', 'text/html'), null);
    });
  });

  describe('types and limits', () => {
    it('typeAllowed matches exact types and type/* wildcards, case-insensitively', () => {
      assert.equal(typeAllowed('IMAGE/PNG', ['image/*']), true);
      assert.equal(typeAllowed('application/pdf', ['image/*']), false);
      assert.equal(typeAllowed('application/pdf', ['application/pdf']), true);
      assert.equal(typeAllowed('application/zip', DEFAULT_ALLOWED_TYPES), false);
      assert.equal(typeAllowed('application/zip', ['*/*']), true);
    });

    it('serves images, PDF, media and plain text inline, never SVG or HTML unless configured', () => {
      assert.equal(servedInline('image/png', []), true);
      assert.equal(servedInline('application/pdf', []), true);
      assert.equal(servedInline('image/svg+xml', []), false);
      assert.equal(servedInline('text/html', []), false);
      assert.equal(servedInline('application/zip', []), false);
      assert.equal(servedInline('image/svg+xml', ['image/svg+xml']), true);
      assert.equal(contentTypeHeader('text/plain'), 'text/plain; charset=utf-8');
      assert.equal(contentTypeHeader('image/png'), 'image/png');
    });

    it('upload limits: environment > options > System Settings > defaults', async () => {
      const settings = {
        get: async (k: string) =>
          (({ MEDIA_MAX_UPLOAD_MB: '2', MEDIA_ALLOWED_TYPES: 'image/png, text/plain' }) as Record<string, unknown>)[k],
      };
      const none = parseMediaOptions({});
      assert.deepEqual(await uploadLimits(none, null), {
        maxBytes: DEFAULT_MAX_UPLOAD_MB * 1024 * 1024,
        allowedTypes: DEFAULT_ALLOWED_TYPES,
      });
      assert.deepEqual(await uploadLimits(none, settings), { maxBytes: 2 * 1024 * 1024, allowedTypes: ['image/png', 'text/plain'] });
      assert.equal((await uploadLimits(parseMediaOptions({ maxUploadMb: 0.5 }), settings)).maxBytes, 512 * 1024);
      assert.equal((await uploadLimits(parseMediaOptions({ maxUploadMb: 0.5 }, { maxUploadMb: '3' }), settings)).maxBytes, 3 * 1024 * 1024);
      assert.deepEqual(
        (await uploadLimits(parseMediaOptions({}, { allowedTypes: 'not a type,, application/PDF' }), settings)).allowedTypes,
        ['application/pdf'],
      );
      const broken = {
        get: async () => {
          throw new Error('no settings table');
        },
      };
      assert.equal((await uploadLimits(none, broken)).maxBytes, DEFAULT_MAX_UPLOAD_MB * 1024 * 1024, 'unreadable settings fall back');
      assert.equal(storageType(none), 'local');
      assert.equal(storageType(parseMediaOptions({ storageType: 'object_store' }, { storageType: ' ' })), 'object_store');
    });

    it('parseMediaOptions refuses invalid options at boot, naming the option', () => {
      assert.throws(() => parseMediaOptions({ maxUploadMb: -1 }), /maxUploadMb/);
      assert.deepEqual(parseMediaOptions(undefined).thumbnails, { sm: 320, md: 768, lg: 1536 });
    });

    it('uploadFields reads folderId and private, refusing malformed values with the field named', () => {
      assert.deepEqual(uploadFields({}), { folderId: null, private: false });
      assert.deepEqual(uploadFields({ folderId: 'null', private: '1' }), { folderId: null, private: true });
      assert.throws(
        () => uploadFields({ folderId: 'abc' }),
        (err: unknown) => err instanceof ValidationError && err.issues[0]?.path === 'folderId',
      );
      assert.throws(
        () => uploadFields({ private: 'yes' }),
        (err: unknown) => err instanceof ValidationError && err.issues[0]?.path === 'private',
      );
    });
  });

  describe('names and paths', () => {
    it('keeps the client name, removing only folders, control/bidi characters and edge dots', () => {
      assert.equal(keptName('C:\\Users\\me\\Mon été.PNG', 'png'), 'Mon été.PNG');
      assert.equal(keptName('../../etc/passwd', 'txt'), 'passwd');
      assert.equal(keptName('evil\u202Egnp.exe', 'bin'), 'evilgnp.exe');
      assert.equal(keptName('x.html. ', 'txt'), 'x.html');
      assert.equal(keptName('...', 'png'), 'file.png');
      const long = keptName(`${'a'.repeat(300)}.jpeg`, 'jpg');
      assert.equal(long.length, 191);
      assert.ok(long.endsWith('.jpeg'));
      assert.equal(slugOf('Mon été (1).PNG'), 'mon-ete-1');
      assert.equal(slugOf('.png'), 'file');
    });

    it('Content-Disposition carries an ASCII fallback and the UTF-8 name', () => {
      assert.equal(
        contentDisposition('attachment', 'résumé "v2".pdf'),
        `attachment; filename="r_sum_ _v2_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22v2%22.pdf`,
      );
    });

    it('storage paths are tenant/year/month, under private/ for private media; thumbnails sit beside', () => {
      const at = new Date(Date.UTC(2026, 0, 5));
      assert.equal(storagePath({ tenantId: 'acme', private: false, id: 'id1', slug: 'cat', ext: 'png', at }), 'acme/2026/01/id1-cat.png');
      assert.equal(
        storagePath({ tenantId: '../x', private: true, id: 'id1', slug: 'cat', ext: 'png', at }),
        'private/___x/2026/01/id1-cat.png',
      );
      const thumb = thumbnailPath('acme/2026/01/id1-cat.png', 'sm');
      assert.equal(thumb, 'acme/2026/01/id1-cat.sm.webp');
      assert.deepEqual(thumbnailParts(thumb), { stem: 'acme/2026/01/id1-cat', name: 'sm' });
      assert.equal(thumbnailParts('acme/2026/01/id1-cat.png'), null);
    });

    it('confinePath refuses traversal, encoded traversal, NUL, backslashes and absolute paths', () => {
      assert.equal(confinePath('acme/2026/01/id1-cat.png', false), 'acme/2026/01/id1-cat.png');
      assert.equal(confinePath('acme%2F2026%2Fa.png', true), 'acme/2026/a.png');
      for (const [raw, encoded] of [
        ['../etc/passwd', false],
        ['acme/%2e%2e/x', true],
        ['a%2F..%2Fb', true],
        ['a\\b', false],
        ['/abs', false],
        ['a//b', false],
        ['a/b\u0000', false],
        ['%E0%A4%A', true],
        ['a b', false],
      ] as const) {
        assert.throws(() => confinePath(raw, encoded), MediaPathInvalidError, `${raw} should be refused`);
      }
    });
  });
});
