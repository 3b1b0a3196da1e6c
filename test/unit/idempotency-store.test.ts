import { strict as assert } from 'node:assert';
import { ValidationError } from '../../kernel/errors.js';
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError, IdempotencyStore } from '../../kernel/http/idempotency.js';
import { openUnitDb, type UnitDb } from '../helpers/unit-db.js';

/** Idempotency-Key handling on real SQLite: first run, replay, reuse for another request, in-flight, encryption. */
describe('unit: idempotency store', () => {
  let db: UnitDb;
  let store: IdempotencyStore;
  const scope = (key: string, principal = 'user:1') => ({ tenantId: 'default', principal, key });
  const request = (body: unknown = { title: 'Hello' }) => ({ method: 'POST', route: '/api/content/posts', params: {}, query: {}, body });

  before(async () => {
    db = await openUnitDb({ migrate: false });
    store = new IdempotencyStore(db.sequelize);
  });
  after(() => db?.close());

  it('parseKey() accepts visible ASCII up to 255 characters and refuses the rest with 400', () => {
    assert.equal(IdempotencyStore.parseKey(undefined), undefined);
    assert.equal(IdempotencyStore.parseKey(''), undefined);
    assert.equal(IdempotencyStore.parseKey('abc-123_XYZ'), 'abc-123_XYZ');
    assert.throws(() => IdempotencyStore.parseKey('has space'), ValidationError);
    assert.throws(() => IdempotencyStore.parseKey('x'.repeat(256)), ValidationError);
    assert.throws(() => IdempotencyStore.parseKey('clé'), ValidationError);
  });

  it('the first request runs; a retry with the same key and request replays the stored answer', async () => {
    const first = await store.begin(scope('k-replay'), request());
    assert.equal(first.kind, 'new');
    if (first.kind !== 'new') return;
    await first.done({ status: 201, body: { success: true, data: { _id: 'e1', secret: 'tok_123' } } });
    const again = await store.begin(scope('k-replay'), request());
    assert.equal(again.kind, 'replay');
    assert.deepEqual(again.kind === 'replay' && again.response, {
      status: 201,
      body: { success: true, data: { _id: 'e1', secret: 'tok_123' } },
    });
  });

  it('stores the answer encrypted: the secret does not appear in the table', async () => {
    const b = await store.begin(scope('k-secret'), request());
    if (b.kind !== 'new') throw new Error('expected new');
    await b.done({ status: 201, body: { token: 'very-secret-token-value' } });
    const [rows] = await db.sequelize.query('SELECT response FROM cms_idempotency_keys');
    assert.ok((rows as Array<{ response: string | null }>).length > 0);
    for (const r of rows as Array<{ response: string | null }>) assert.ok(!String(r.response).includes('very-secret-token-value'));
  });

  it('the same key with another body is refused (422), and while the first is in flight a retry gets 409', async () => {
    const b = await store.begin(scope('k-busy'), request({ title: 'A' }));
    assert.equal(b.kind, 'new');
    await assert.rejects(
      store.begin(scope('k-busy'), request({ title: 'A' })),
      (err: unknown) => err instanceof IdempotencyKeyInUseError && err.status === 409,
    );
    await assert.rejects(
      store.begin(scope('k-busy'), request({ title: 'B' })),
      (err: unknown) => err instanceof IdempotencyKeyReusedError && err.status === 422,
    );
  });

  it('an abandoned (failed) request keeps nothing, so the key can be used again', async () => {
    const b = await store.begin(scope('k-fail'), request());
    if (b.kind !== 'new') throw new Error('expected new');
    await b.abandon();
    assert.equal((await store.begin(scope('k-fail'), request())).kind, 'new');
  });

  it('keys are per caller: another principal with the same key runs anew', async () => {
    const a = await store.begin(scope('k-shared', 'user:a'), request());
    if (a.kind !== 'new') throw new Error('expected new');
    await a.done({ status: 201, body: { by: 'a' } });
    assert.equal((await store.begin(scope('k-shared', 'user:b'), request())).kind, 'new');
  });

  it('an expired row no longer replays', async () => {
    const b = await store.begin(scope('k-old'), request());
    if (b.kind !== 'new') throw new Error('expected new');
    await b.done({ status: 201, body: { old: true } });
    await db.sequelize.query('UPDATE cms_idempotency_keys SET expires_at = 1');
    assert.equal((await store.begin(scope('k-old'), request())).kind, 'new');
  });
});
