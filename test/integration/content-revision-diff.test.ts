import { expect } from 'chai';
import { as, createCollections, dataOf, failureOf } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Issue 37, item 2 (API decisions "Revisions"): GET .../revisions/:version/diff?against= -> {changes: [{field, before,
// after}]} (before: the against version's value, after: this version's); POST .../revisions/:version/restore writes
// that state as a new version.
for (const variant of DB_VARIANTS) {
  describe(`content: revision diffs and restore (${variant.name})`, function () {
    this.timeout(60000);
    const t = useIdentityKernel(variant, {
      seed: async () =>
        createCollections(t, {
          name: 'posts',
          fields: [
            { name: 'title', type: 'text', required: true },
            { name: 'body', type: 'richtext' },
            { name: 'tags', type: 'json' },
            { name: 'note', type: 'text' },
          ],
        }),
    });
    const editor = () => as(t, 'editor');
    const base = (id: string) => `/api/collections/posts/${id}/revisions`;

    async function threeVersions(): Promise<string> {
      const made = await dataOf(await editor().post('/api/collections/posts', { title: 'First', body: '<p>One</p>', tags: ['a'] }), 201);
      await dataOf(await editor().patch(`/api/collections/posts/${made._id}`, { title: 'Second', tags: ['a', 'b'] }));
      await dataOf(await editor().patch(`/api/collections/posts/${made._id}`, { body: '<p>Two</p>', note: 'added' }));
      return made._id as string;
    }

    it('answers the fields that differ between a version and the one before it, or any version named by against', async function () {
      const id = await threeVersions();
      const latest = await dataOf(await editor().get(`${base(id)}/3/diff`));
      expect(latest).to.deep.equal({
        version: 3,
        against: 2,
        changes: [
          { field: 'body', before: '<p>One</p>', after: '<p>Two</p>' },
          { field: 'note', before: null, after: 'added' },
        ],
      });
      const wide = await dataOf(await editor().get(`${base(id)}/3/diff?against=1`));
      expect(wide.changes.map((c: any) => c.field)).to.deep.equal(['title', 'body', 'tags', 'note']);
      expect(wide.changes[0]).to.deep.equal({ field: 'title', before: 'First', after: 'Second' });
      expect(wide.changes[2]).to.deep.equal({ field: 'tags', before: ['a'], after: ['a', 'b'] });
      // Backwards works too (before is always the against version's value).
      const back = await dataOf(await editor().get(`${base(id)}/1/diff?against=3`));
      expect(back.changes[0]).to.deep.equal({ field: 'title', before: 'Second', after: 'First' });
      // The first version against nothing: every value it set.
      const first = await dataOf(await editor().get(`${base(id)}/1/diff`));
      expect(first.against).to.equal(null);
      expect(first.changes.map((c: any) => c.field)).to.include.members(['title', 'body', 'tags', 'slug', 'status']);
      // A status change is a change.
      await dataOf(await editor().patch(`/api/collections/posts/${id}/status`, { status: 'published' }));
      expect((await dataOf(await editor().get(`${base(id)}/4/diff`))).changes).to.deep.equal([
        { field: 'status', before: 'draft', after: 'published' },
      ]);
    });

    it('restores a version as a new one, keeping the status, and the history shows it', async function () {
      const id = await threeVersions();
      await dataOf(await editor().patch(`/api/collections/posts/${id}/status`, { status: 'published' }));
      const restored = await dataOf(await editor().post(`${base(id)}/1/restore`));
      expect(restored).to.include({ title: 'First', body: '<p>One</p>', version: 5, status: 'published' });
      expect(restored.tags).to.deep.equal(['a']);
      // note was not set in version 1: restoring writes version 1's values of the fields it held.
      const history = await dataOf(await editor().get(base(id)));
      expect(history[0].version).to.equal(5);
      const diff = await dataOf(await editor().get(`${base(id)}/5/diff?against=1`));
      expect(diff.changes.map((c: any) => c.field).filter((f: string) => f !== 'status' && f !== 'note')).to.deep.equal([]);
    });

    it('a save made from an older version is refused with 409 naming the current version, and the diff says what changed since', async function () {
      const id = await threeVersions();
      // Someone else saves version 4 while this editor still has version 3 open.
      await dataOf(await editor().patch(`/api/collections/posts/${id}`, { title: 'Theirs' }));
      const stale = (await failureOf(await editor().patch(`/api/collections/posts/${id}?ifVersion=3`, { title: 'Mine' }), 409)) as any;
      expect(stale.error).to.equal('CONFLICT');
      expect(stale.current).to.include({ version: 4, updatedBy: 'user-editor' });
      expect(stale.message).to.match(/version 4 now, not 3/);
      const now = await dataOf(await editor().get(`/api/collections/posts/${id}`));
      expect(now).to.include({ title: 'Theirs', version: 4 });
      expect((await dataOf(await editor().get(`${base(id)}/4/diff?against=3`))).changes).to.deep.equal([
        { field: 'title', before: 'Second', after: 'Theirs' },
      ]);
      // Saved from the current version it goes through; without ifVersion as before.
      expect(await dataOf(await editor().patch(`/api/collections/posts/${id}?ifVersion=4`, { title: 'Mine' }))).to.include({ version: 5 });
      expect((await failureOf(await editor().patch(`/api/collections/posts/${id}?ifVersion=x`, { title: 'Mine' }), 400)).error).to.equal(
        'VALIDATION_ERROR',
      );
    });

    it('keeps other tenants, readers and bad input out; a version without a revision is 404; an invalid restore writes nothing', async function () {
      const id = await threeVersions();
      expect((await failureOf(await as(t, 'admin', 'other').get(`${base(id)}/2/diff`), 404)).error).to.equal('ENTRY_NOT_FOUND');
      expect((await failureOf(await as(t, 'admin', 'other').post(`${base(id)}/1/restore`), 404)).error).to.equal('ENTRY_NOT_FOUND');
      expect((await as(t, 'viewer').get(`${base(id)}/2/diff`)).status).to.equal(403);
      expect((await as(t, 'viewer').post(`${base(id)}/1/restore`)).status).to.equal(403);
      expect((await failureOf(await editor().get(`${base(id)}/zero/diff`), 400)).error).to.equal('VALIDATION_ERROR');
      expect((await failureOf(await editor().get(`${base(id)}/2/diff?against=x`), 400)).error).to.equal('VALIDATION_ERROR');
      expect((await failureOf(await editor().get(`${base(id)}/99/diff`), 404)).error).to.equal('NOT_FOUND');
      expect((await failureOf(await editor().get(`${base(id)}/2/diff?against=99`), 404)).error).to.equal('NOT_FOUND');
      expect((await failureOf(await editor().post(`${base(id)}/99/restore`), 404)).error).to.equal('NOT_FOUND');
      // A version whose stored value the schema no longer accepts (here written into the history by hand, as a field
      // conversion or an old import could leave it): 400, and the entry stays as it was.
      await t.kernel.sequelize.query('UPDATE content_revisions SET data = ? WHERE entry_id = ? AND version = 1', {
        replacements: [JSON.stringify({ _id: id, title: 12, slug: 'first', status: 'draft' }), id],
      });
      const before = await dataOf(await editor().get(`/api/collections/posts/${id}`));
      expect((await failureOf(await editor().post(`${base(id)}/1/restore`), 400)).error).to.equal('VALIDATION_ERROR');
      expect(await dataOf(await editor().get(`/api/collections/posts/${id}`))).to.deep.equal(before);
    });
  });
}
