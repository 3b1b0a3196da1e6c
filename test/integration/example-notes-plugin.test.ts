import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { BootError } from '../../kernel/errors.js';
import { DIST_ROOT } from '../../kernel/version.js';
import { fixturePlugin, startTestKernel, tempDir, type TestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';

/** The README's typed example plugin, compiled with the project (examples/notes-plugin -> dist/examples/notes-plugin). */
export const NOTES_PLUGIN = join(DIST_ROOT, 'examples', 'notes-plugin');

for (const variant of DB_VARIANTS) {
  describe(`examples/notes-plugin: the typed plugin of the README (${variant.name})`, function () {
    this.timeout(60000);
    let t: TestKernel;
    before(async function () {
      requireVariant(this, variant);
      t = await startTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity'), NOTES_PLUGIN] });
    });
    after(() => t?.close());

    it("keeps each caller's notes apart through its request-scoped service", async () => {
      const created = await t.request('/api/notes', { method: 'POST', identity: 'editor', json: { text: '  Buy milk ' } });
      expect(created.status).to.equal(201);
      const note = (await created.json()).data;
      expect(note.text).to.equal('Buy milk');
      expect(
        (await (await t.request('/api/notes', { identity: 'editor' })).json()).data.notes.map((n: { id: string }) => n.id),
      ).to.deep.equal([note.id]);
      // Another user (another currentUser in the request scope) sees none of them and cannot delete them.
      expect((await (await t.request('/api/notes', { identity: 'viewer' })).json()).data.notes).to.deep.equal([]);
      const foreign = await t.request(`/api/notes/${note.id}`, { method: 'DELETE', identity: 'viewer' });
      expect(foreign.status).to.equal(404);
      expect((await foreign.json()).error).to.equal('NOTE_NOT_FOUND');
      expect((await t.request(`/api/notes/${note.id}`, { method: 'DELETE', identity: 'editor' })).status).to.equal(200);
      expect((await (await t.request('/api/notes', { identity: 'editor' })).json()).data.notes).to.deep.equal([]);
    });

    it('answers bad input and guests with the documented errors', async () => {
      const empty = await t.request('/api/notes', { method: 'POST', identity: 'editor', json: { text: '   ' } });
      expect(empty.status).to.equal(400);
      expect((await empty.json()).error).to.equal('VALIDATION_ERROR');
      expect((await t.request('/api/notes/not-a-uuid', { method: 'DELETE', identity: 'editor' })).status).to.equal(400);
      expect((await t.request('/api/notes')).status).to.equal(401);
    });

    it('lists its page for the admin UI and serves the page module', async () => {
      const pages = (await (await t.request('/api/admin-ui/pages', { identity: 'viewer' })).json()).data.pages;
      const notes = pages.find((p: { pluginId: string }) => p.pluginId === 'notes');
      expect(notes).to.include({ path: '/admin/notes', title: 'My notes' });
      const module = await t.request(notes.module.url, { identity: 'viewer' });
      expect(module.status).to.equal(200);
      expect(await module.text()).to.contain('export function mount(element, ctx)');
    });
  });
}

describe('examples/notes-plugin: options and state from boot to close', function () {
  this.timeout(60000);
  it('prunes notes older than NOTES_RETENTION_DAYS when it boots, and refuses a bad value at boot', async () => {
    const dataDir = tempDir('cms-notes-');
    try {
      let t = await startTestKernel({ dataDir, plugins: [fixturePlugin('test-identity'), NOTES_PLUGIN] });
      await t.request('/api/notes', { method: 'POST', identity: 'editor', json: { text: 'old' } });
      await t.request('/api/notes', { method: 'POST', identity: 'editor', json: { text: 'new' } });
      await t.kernel.container
        .resolve<{ query(sql: string): Promise<unknown> }>('sequelize')
        .query(`UPDATE notes_items SET created_at = ${Date.now() - 40 * 86_400_000} WHERE text = 'old'`);
      await t.close();
      t = await startTestKernel({
        dataDir,
        plugins: [fixturePlugin('test-identity'), NOTES_PLUGIN],
        config: { plugins: { options: { notes: { retentionDays: 30 } } } },
      });
      const texts = (await (await t.request('/api/notes', { identity: 'editor' })).json()).data.notes.map((n: { text: string }) => n.text);
      await t.close();
      expect(texts).to.deep.equal(['new']);
      let failure: unknown;
      try {
        await (
          await startTestKernel({ dataDir, plugins: [NOTES_PLUGIN], config: { plugins: { options: { notes: { retentionDays: 0 } } } } })
        ).close();
      } catch (err) {
        failure = err;
      }
      expect(failure).to.be.instanceOf(BootError);
      expect((failure as Error).message).to.contain('plugins.options.notes');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
