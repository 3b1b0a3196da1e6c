import { strict as assert } from 'node:assert';
import { ConflictError, ValidationError } from '../../kernel/errors.js';
import type { Identity } from '../../kernel/http/identity.js';
import { CacheService } from '../../kernel/cache/cache-service.js';
import { EventBus } from '../../kernel/events.js';
import { CollectionsService } from '../../plugins/content/collections-service.js';
import { EntriesService } from '../../plugins/content/entries-service.js';
import { ListCache } from '../../plugins/content/list-cache.js';
import { CONTENT_MIGRATIONS } from '../../plugins/content/migrations.js';
import { CollectionRow } from '../../plugins/content/models/collection-row.js';
import { Revision } from '../../plugins/content/models/revision.js';
import { CollectionExistsError, CollectionNotFoundError, EntryNotFoundError } from '../../plugins/content/errors.js';
import { listQuerySchema } from '../../plugins/content/list-query.js';
import { openUnitDb, type UnitDb } from '../helpers/unit-db.js';

/**
 * The content plugin's collections and entries services, called directly (no HTTP), built as the plugin
 * builds them on a real SQLite file (kernel database module, the plugin's models and migrations), the
 * real in-memory cache (list cache) and the real event bus.
 */
describe('unit: content collections and entries services', function () {
  let db: UnitDb;
  let cache: CacheService;
  let events: EventBus;
  const published: string[] = [];
  let collections: CollectionsService;
  let entries: EntriesService;
  const editor: Identity = {
    kind: 'user',
    userId: 'editor-1',
    role: 'editor',
    permissions: ['content:read', 'content:write'],
    tenantId: 'default',
  };
  const reader: Identity = { kind: 'user', userId: 'reader-1', role: 'viewer', permissions: ['content:read'], tenantId: 'default' };
  const otherTenant: Identity = { ...editor, tenantId: 'acme' };
  const q = (over: Record<string, unknown> = {}) => listQuerySchema.parse(over);

  before(async function () {
    db = await openUnitDb({ plugins: [{ id: 'content', models: [CollectionRow, Revision], migrations: CONTENT_MIGRATIONS }] });
    cache = await CacheService.create({ prefix: 'unit', defaultTtlSeconds: 60, logger: db.logger });
    events = new EventBus(db.logger);
    for (const name of ['on:create', 'on:update', 'on:delete', 'on:status_change']) events.subscribe(name, () => void published.push(name));
    collections = new CollectionsService(db.sequelize, db.migrator, events);
    entries = new EntriesService(db.sequelize, collections, new ListCache(cache, db.logger), events, db.logger);
    await collections.refresh();
    await collections.create({
      name: 'posts',
      fields: [
        { name: 'title', type: 'text', required: true },
        { name: 'views', type: 'number', default: 0 },
        { name: 'code', type: 'text', unique: true },
      ],
    });
  });
  after(async () => {
    await events?.close();
    await cache?.close();
    await db?.close();
  });

  describe('collections', () => {
    it('creates a collection with default label and singular, and lists it', async () => {
      const posts = await collections.get('posts');
      assert.equal(posts.version, 1);
      assert.equal(posts.singular !== 'posts', true);
      assert.ok(collections.list().some((c) => c.name === 'posts'));
    });

    it('refuses a second collection of the same name (409)', async () => {
      await assert.rejects(collections.create({ name: 'posts', singular: 'postx', fields: [] }), CollectionExistsError);
    });

    it('refuses a singular equal to the name, naming body.singular', async () => {
      await assert.rejects(
        collections.create({ name: 'things', singular: 'things', fields: [] }),
        (err: unknown) => err instanceof ValidationError && err.issues.some((i) => i.path === 'body.singular'),
      );
    });

    it('refuses a relation to an unknown collection, naming the field', async () => {
      await assert.rejects(
        collections.create({ name: 'comments', fields: [{ name: 'post', type: 'relation', collection: 'nope' }] }),
        (err: unknown) =>
          err instanceof ValidationError && /'post'/.test(err.message) && err.issues[0]?.path === 'body.fields.0.collection',
      );
      await assert.rejects(collections.get('comments'), CollectionNotFoundError, 'nothing was left behind');
    });

    it('update adds a field (new version) but refuses changing a field type', async () => {
      await collections.create({ name: 'notes', fields: [{ name: 'body', type: 'text' }] });
      const updated = await collections.update('notes', {
        fields: [
          { name: 'body', type: 'text' },
          { name: 'pinned', type: 'boolean' },
        ],
      });
      assert.equal(updated.version, 2);
      assert.deepEqual(
        updated.fields.map((f) => f.name),
        ['body', 'pinned'],
      );
      await assert.rejects(
        // text -> number would convert (field-conversion.ts); text -> date does not.
        collections.update('notes', { fields: [{ name: 'body', type: 'date' }] }),
        (err: unknown) => err instanceof ValidationError && err.issues[0]?.path === 'body.fields.0.type',
      );
      const n = await entries.create('notes', { body: 'hello', pinned: true }, editor);
      assert.equal(n.pinned, true);
    });

    it('remove drops the collection; a collection that others relate to cannot be removed', async () => {
      await collections.create({ name: 'authors', fields: [{ name: 'name', type: 'text' }] });
      await collections.create({ name: 'books', fields: [{ name: 'author', type: 'relation', collection: 'authors' }] });
      await assert.rejects(collections.remove('authors'), ConflictError);
      await collections.remove('books');
      await collections.remove('authors');
      await assert.rejects(collections.get('authors'), CollectionNotFoundError);
    });
  });

  describe('entries', () => {
    it('create assigns a slug from the title and a unique one on collision', async () => {
      const a = await entries.create('posts', { title: 'Hello World' }, editor);
      const b = await entries.create('posts', { title: 'Hello World' }, editor);
      const c = await entries.create('posts', { title: 'Hello, world!' }, editor);
      assert.equal(a.slug, 'hello-world');
      assert.equal(b.slug, 'hello-world-2');
      assert.equal(c.slug, 'hello-world-3');
      assert.equal(a.status, 'draft');
      assert.equal(a.version, 1);
      assert.equal(a.views, 0, 'field default applied');
    });

    it('createMany deduplicates slugs within the batch too', async () => {
      const made = await entries.createMany('posts', [{ title: 'Batch' }, { title: 'Batch' }, { title: 'Batch' }], editor);
      assert.deepEqual(
        made.map((e) => e.slug),
        ['batch', 'batch-2', 'batch-3'],
      );
    });

    it('validation errors name the field: missing required, wrong type, unknown key', async () => {
      await assert.rejects(
        entries.create('posts', { views: 3 }, editor),
        (err: unknown) => err instanceof ValidationError && err.issues.some((i) => i.path === 'body.title' && i.message === 'required'),
      );
      await assert.rejects(
        entries.create('posts', { title: 'x', views: 'many' }, editor),
        (err: unknown) => err instanceof ValidationError && err.issues.some((i) => i.path === 'body.views'),
      );
      await assert.rejects(
        entries.create('posts', { title: 'x', colour: 'red' }, editor),
        (err: unknown) => err instanceof ValidationError && err.issues.some((i) => i.path === 'body.colour'),
      );
    });

    it('a duplicate value in a unique field is a 409 naming the field', async () => {
      await entries.create('posts', { title: 'U1', code: 'X-1' }, editor);
      await assert.rejects(
        entries.create('posts', { title: 'U2', code: 'X-1' }, editor),
        (err: unknown) => (err as { status?: number }).status === 409 && /'code'/.test((err as Error).message),
      );
    });

    it('update bumps the version and keeps a revision of every write', async () => {
      const e = await entries.create('posts', { title: 'Draft one' }, editor);
      published.length = 0;
      const u1 = await entries.update('posts', e._id, { title: 'Draft one, edited' }, editor);
      const u2 = await entries.update('posts', e._id, { status: 'published' }, editor);
      assert.equal(u1.version, 2);
      assert.equal(u2.version, 3);
      assert.equal(u2.title, 'Draft one, edited');
      assert.equal(u2.slug, 'draft-one', 'the slug stays unless asked to change');
      assert.deepEqual(published, ['on:update', 'on:update', 'on:status_change'], 'events on the bus');
      const revs = await entries.revisions('posts', e._id, editor);
      assert.deepEqual(
        revs.map((r) => [r.version, r.action]),
        [
          [3, 'status'],
          [2, 'update'],
          [1, 'create'],
        ],
      );
      assert.equal(revs[2]!.data.title, 'Draft one');
    });

    it('update with a taken slug gets a free one', async () => {
      const a = await entries.create('posts', { title: 'Slug target' }, editor);
      const b = await entries.create('posts', { title: 'Other' }, editor);
      const moved = await entries.update('posts', b._id, { slug: 'Slug Target' }, editor);
      assert.notEqual(moved.slug, a.slug);
      assert.match(moved.slug, /^slug-target-\d+$/);
    });

    it('delete removes the entry from get, the list and its revisions', async () => {
      const e = await entries.create('posts', { title: 'Doomed entry' }, editor);
      const before = await entries.list('posts', q({ limit: 100 }), editor);
      assert.ok(before.value.items.some((x) => x._id === e._id));
      await entries.remove('posts', e._id, editor);
      await assert.rejects(entries.get('posts', e._id, editor), EntryNotFoundError);
      const afterList = await entries.list('posts', q({ limit: 100 }), editor);
      assert.ok(!afterList.value.items.some((x) => x._id === e._id), 'the cached list was invalidated');
      await assert.rejects(entries.remove('posts', e._id, editor), EntryNotFoundError);
    });

    it('readers without content:write see published entries only', async () => {
      const draft = await entries.create('posts', { title: 'Secret draft' }, editor);
      const pub = await entries.create('posts', { title: 'Public post', status: 'published' }, editor);
      await assert.rejects(entries.get('posts', draft._id, reader), EntryNotFoundError);
      assert.equal((await entries.get('posts', pub._id, reader)).title, 'Public post');
      const listed = await entries.list('posts', q({ limit: 100 }), reader);
      assert.ok(listed.value.items.every((x) => x.status === 'published'));
      assert.ok(listed.value.items.some((x) => x._id === pub._id));
    });

    it('entries of another tenant are invisible', async () => {
      const e = await entries.create('posts', { title: 'Tenant scoped' }, editor);
      await assert.rejects(entries.get('posts', e._id, otherTenant), EntryNotFoundError);
      const other = await entries.create('posts', { title: 'Tenant scoped' }, otherTenant);
      assert.equal(other.slug, 'tenant-scoped', 'slugs are unique per tenant');
    });
  });
});
