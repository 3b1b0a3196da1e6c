import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { as, dataOf } from '../helpers/content.js';
import { fixturePlugin, type TestResponse, useTestKernel } from '../helpers/kernel.js';
import { imageBytes, uploadFile } from '../helpers/media-upload.js';
import { DB_VARIANTS } from '../helpers/services.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const HOUR = 3600 * 1000;

for (const variant of DB_VARIANTS) {
  describe(`media share links (${variant.name})`, function () {
    this.timeout(60000);
    let item: any;
    let png: Buffer;
    const t = useTestKernel(
      {
        db: variant.name,
        plugins: [fixturePlugin('test-identity')],
        config: { plugins: { options: { media: { shareAttempts: { points: 3, durationSeconds: 60 } } } } },
      },
      {
        variant,
        seed: async () => {
          png = await imageBytes(300, 200);
          item = await dataOf(await uploadFile(t, png, 'shared.png', { fields: { private: 'true' } }), 201);
        },
      },
    );

    const editor = () => as(t, 'editor');
    const share = async (body: object = {}, id = item._id) => dataOf(await editor().post(`/api/media/share/${id}`, body));
    const open = (query: Record<string, string>) => t.request(`/api/media/share?${new URLSearchParams(query)}`);
    const expectError = async (res: TestResponse, status: number, code: string) => {
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).to.equal(status);
      expect(body).to.include({ success: false, error: code });
    };
    const storedMetadata = async (id = item._id) => {
      const [row] = await t.kernel.sequelize.query<{ metadata: string }>('SELECT metadata FROM media_items WHERE id = ?', {
        replacements: [id],
        type: QueryTypes.SELECT,
      });
      return JSON.parse(row!.metadata);
    };
    const storedLinks = async (id = item._id) => (await storedMetadata(id)).sharedLinks as any[];
    /** Edits the stored links directly (to make one expire without waiting). */
    const rewriteLinks = async (change: (links: any[]) => void, id = item._id) => {
      const meta = await storedMetadata(id);
      change(meta.sharedLinks);
      await t.kernel.sequelize.query('UPDATE media_items SET metadata = ? WHERE id = ?', { replacements: [JSON.stringify(meta), id] });
    };

    it("creates an unguessable token shown once; the database keeps only its hash (and the password's SHA-256)", async function () {
      const never = await share();
      expect(never.token).to.match(/^[A-Za-z0-9_-]{43}$/);
      expect(never.expiresAt).to.equal(null);
      const omitted = await share({ expiryHours: null });
      expect(omitted.expiresAt).to.equal(null);
      expect(omitted.token).to.not.equal(never.token);
      const timed = await share({ expiryHours: 24, password: 'open sesame' });
      expect(Date.parse(timed.expiresAt) - Date.now()).to.be.closeTo(24 * HOUR, 60000);
      const links = await storedLinks();
      const raw = JSON.stringify(links);
      for (const token of [never.token, omitted.token, timed.token]) expect(raw).to.not.include(token);
      const stored = links.find((l) => l.token === sha256(timed.token));
      expect(stored).to.include({ passwordHash: sha256('open sesame'), createdBy: 'user-editor' });
      expect(raw).to.not.include('open sesame');
      const view = await dataOf(await editor().get(`/api/media/${item._id}`));
      expect(view.sharedLinks.map((l: any) => l.id)).to.include(sha256(never.token));
      expect(JSON.stringify(view)).to.not.include(never.token);
    });

    it("needs media:write, an item of the caller's tenant (404 otherwise) and a sane body", async function () {
      expect((await as(t, 'viewer').post(`/api/media/share/${item._id}`, {})).status).to.equal(403);
      expect((await t.request(`/api/media/share/${item._id}`, { method: 'POST', json: {} })).status).to.equal(401);
      await expectError(await editor().post('/api/media/share/6f1c8a2e-4b7d-4c9e-8f10-2a3b4c5d6e7f', {}), 404, 'MEDIA_NOT_FOUND');
      await expectError(await editor().post('/api/media/share/not-a-uuid', {}), 404, 'MEDIA_NOT_FOUND');
      await expectError(await as(t, 'editor', 'other').post(`/api/media/share/${item._id}`, {}), 404, 'MEDIA_NOT_FOUND');
      for (const body of [{ expiryHours: 0 }, { expiryHours: 1.5 }, { expiryHours: '24' }, { password: '' }]) {
        expect((await editor().post(`/api/media/share/${item._id}`, body)).status, JSON.stringify(body)).to.equal(400);
      }
    });

    it("public access follows the spec's order: 400 (id or token missing), 404 (no such link), 410 (expired), 401 (password)", async function () {
      const plain = await share();
      await expectError(await open({ token: plain.token }), 400, 'VALIDATION_ERROR');
      await expectError(await open({ id: item._id }), 400, 'VALIDATION_ERROR');
      await expectError(await open({}), 400, 'VALIDATION_ERROR');
      await expectError(await open({ id: item._id, token: 'A'.repeat(43) }), 404, 'SHARE_NOT_FOUND');
      await expectError(await open({ id: item._id, token: sha256(plain.token) }), 404, 'SHARE_NOT_FOUND');
      const other = await dataOf(await uploadFile(t, Buffer.from('other file'), 'other.txt'), 201);
      await expectError(await open({ id: other._id, token: plain.token }), 404, 'SHARE_NOT_FOUND');
      await expectError(await open({ id: 'nonsense', token: plain.token }), 404, 'SHARE_NOT_FOUND');

      // Expired, and with a password: expiry is checked before the password.
      const expiring = await share({ expiryHours: 1, password: 'pw' });
      await rewriteLinks((links) => (links.find((l) => l.token === sha256(expiring.token)).expiresAt = Date.now() - 1000));
      await expectError(await open({ id: item._id, token: expiring.token }), 410, 'SHARE_EXPIRED');
      await expectError(await open({ id: item._id, token: expiring.token, password: 'wrong' }), 410, 'SHARE_EXPIRED');

      const locked = await share({ password: 'correct horse' });
      await expectError(await open({ id: item._id, token: locked.token }), 401, 'SHARE_PASSWORD_REQUIRED');
      await expectError(await open({ id: item._id, token: locked.token, password: 'wrong horse' }), 401, 'SHARE_PASSWORD_INVALID');
      const ok = await open({ id: item._id, token: locked.token, password: 'correct horse' });
      expect(await dataOf(ok)).to.deep.equal({ filename: 'shared.png', mimeType: 'image/png', size: png.length, url: item.url });
      expect(ok.headers.get('cache-control')).to.equal('private, no-store');
      expect(await dataOf(await open({ id: item._id, token: plain.token }))).to.include({ filename: 'shared.png' });
    });

    it('download=1 streams the file (even a private one) as an attachment with its type', async function () {
      const { token } = await share({ password: 'pw' });
      const res = await open({ id: item._id, token, password: 'pw', download: '1' });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('image/png');
      expect(res.headers.get('content-disposition')).to.match(/^attachment; filename="shared\.png"/);
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(res.headers.get('content-length')).to.equal(String(png.length));
      expect(Buffer.from(await res.arrayBuffer()).equals(png)).to.equal(true);
      // The same private file through /files/ stays closed to the guest.
      expect((await t.request(item.url)).status).to.equal(401);
    });

    it('the password travels outside the URL too: the X-Share-Password header, or a POST body (JSON or a form), for the metadata and the download', async function () {
      const { token } = await share({ password: 'header horse' });
      const viaHeader = (password: string, extra: Record<string, string> = {}) =>
        t.request(`/api/media/share?${new URLSearchParams({ id: item._id, token, ...extra })}`, {
          headers: { 'x-share-password': password },
        });
      await expectError(await viaHeader('wrong horse'), 401, 'SHARE_PASSWORD_INVALID');
      expect(await dataOf(await viaHeader('header horse'))).to.include({ filename: 'shared.png' });
      const file = await viaHeader('header horse', { download: '1' });
      expect(file.headers.get('content-disposition')).to.match(/^attachment; filename="shared\.png"/);
      expect(Buffer.from(await file.arrayBuffer()).equals(png)).to.equal(true);
      const post = (body: object) => t.request('/api/media/share', { method: 'POST', json: body });
      await expectError(await post({ id: item._id, token }), 401, 'SHARE_PASSWORD_REQUIRED');
      await expectError(await post({ id: item._id, token, password: 'wrong horse' }), 401, 'SHARE_PASSWORD_INVALID');
      await expectError(await post({ token, password: 'header horse' }), 400, 'VALIDATION_ERROR');
      expect(await dataOf(await post({ id: item._id, token, password: 'header horse' }))).to.include({ filename: 'shared.png' });
      // An HTML form (what the share page submits for the download): the file as an attachment.
      const form = await t.request('/api/media/share', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ id: item._id, token, password: 'header horse', download: '1' }).toString(),
      });
      expect(form.status).to.equal(200);
      expect(form.headers.get('content-disposition')).to.match(/^attachment; filename="shared\.png"/);
      expect(Buffer.from(await form.arrayBuffer()).equals(png)).to.equal(true);
    });

    it('revoke (by token or by link id) makes the link 404; extend sets expiry to now + hours and revives an expired link', async function () {
      const a = await share();
      expect(await dataOf(await editor().delete(`/api/media/share/${item._id}/${a.token}`))).to.deep.equal({ revoked: true });
      await expectError(await open({ id: item._id, token: a.token }), 404, 'SHARE_NOT_FOUND');
      await expectError(await editor().delete(`/api/media/share/${item._id}/${a.token}`), 404, 'SHARE_NOT_FOUND');
      const b = await share();
      await dataOf(await editor().delete(`/api/media/share/${item._id}/${sha256(b.token)}`));
      await expectError(await open({ id: item._id, token: b.token }), 404, 'SHARE_NOT_FOUND');

      const c = await share({ expiryHours: 1 });
      await rewriteLinks((links) => (links.find((l) => l.token === sha256(c.token)).expiresAt = Date.now() - 1000));
      await expectError(await open({ id: item._id, token: c.token }), 410, 'SHARE_EXPIRED');
      const extended = await dataOf(await editor().patch(`/api/media/share/${item._id}/${c.token}`, { expiryHours: 48 }));
      expect(extended.token).to.equal(c.token);
      expect(Date.parse(extended.expiresAt) - Date.now()).to.be.closeTo(48 * HOUR, 60000);
      expect((await open({ id: item._id, token: c.token })).status).to.equal(200);
      expect((await editor().patch(`/api/media/share/${item._id}/${c.token}`, {})).status).to.equal(400);
      expect((await editor().patch(`/api/media/share/${item._id}/${c.token}`, { expiryHours: null })).status).to.equal(400);
      await expectError(await editor().patch(`/api/media/share/${item._id}/${'B'.repeat(43)}`, { expiryHours: 1 }), 404, 'SHARE_NOT_FOUND');
      await expectError(await as(t, 'editor', 'other').delete(`/api/media/share/${item._id}/${c.token}`), 404, 'MEDIA_NOT_FOUND');
      expect((await as(t, 'viewer').delete(`/api/media/share/${item._id}/${c.token}`)).status).to.equal(403);
    });

    it('wrong passwords are limited per link: past the limit even the right one answers 429 with Retry-After; other links are not affected', async function () {
      const target = await share({ password: 'right' });
      const bystander = await share({ password: 'right' });
      for (let i = 0; i < 3; i++)
        await expectError(await open({ id: item._id, token: target.token, password: `wrong-${i}` }), 401, 'SHARE_PASSWORD_INVALID');
      for (const password of ['wrong-again', 'right']) {
        const limited = await open({ id: item._id, token: target.token, password });
        await expectError(limited, 429, 'RATE_LIMITED');
        const retry = Number(limited.headers.get('retry-after'));
        expect(retry).to.be.within(1, 60);
      }
      expect((await open({ id: item._id, token: bystander.token, password: 'right' })).status).to.equal(200);
    });

    it('moving the item to another folder keeps its links working; deleting it ends them', async function () {
      const { token } = await share();
      const folder = await dataOf(await editor().post('/api/media/folders', { name: `Shared ${Date.now()}` }), 201);
      await dataOf(await editor().post('/api/media/move', { ids: [item._id], folderId: folder._id }));
      expect(await dataOf(await open({ id: item._id, token }))).to.include({ url: item.url });
      const dl = await open({ id: item._id, token, download: '1' });
      expect(Buffer.from(await dl.arrayBuffer()).equals(png)).to.equal(true);
      const doomed = await dataOf(await uploadFile(t, Buffer.from('bye'), 'doomed.txt'), 201);
      const link = await share({}, doomed._id);
      await dataOf(await editor().delete(`/api/media/${doomed._id}`));
      await expectError(await open({ id: doomed._id, token: link.token }), 404, 'SHARE_NOT_FOUND');
    });

    it('a link of an item in another tenant opens by id and token; its management stays in that tenant', async function () {
      const acme = await dataOf(await uploadFile(t, Buffer.from('acme notes'), 'acme.txt', { tenant: 'acme' }), 201);
      const { token } = await dataOf(await as(t, 'editor', 'acme').post(`/api/media/share/${acme._id}`, { expiryHours: 2 }));
      expect(await dataOf(await open({ id: acme._id, token }))).to.include({ filename: 'acme.txt' });
      await expectError(await editor().patch(`/api/media/share/${acme._id}/${token}`, { expiryHours: 5 }), 404, 'MEDIA_NOT_FOUND');
    });
  });
}
