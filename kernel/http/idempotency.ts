import type { Context } from 'koa';
import type { Identity } from './identity.js';
import type { RegisteredRoute } from './route-table.js';
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import { QueryTypes, UniqueConstraintError, type Sequelize } from 'sequelize';
import { defineError, ValidationError } from '../errors.js';

export class IdempotencyKeyInUseError extends defineError(
  'IDEMPOTENCY_KEY_IN_USE',
  409,
  'A request with this Idempotency-Key is still being processed; retry after Retry-After seconds.',
  () => ({ message: 'A request with this Idempotency-Key is still being processed; retry shortly', headers: { 'Retry-After': '1' } }),
) {}
export class IdempotencyKeyReusedError extends defineError(
  'IDEMPOTENCY_KEY_REUSED',
  422,
  'This Idempotency-Key was used for a different request (another route, body or caller); use a new key.',
  'This Idempotency-Key was already used for a different request; use a new key for a new request',
) {}

const KEY = /^[\x21-\x7e]{1,255}$/;
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/** A pending key older than this belongs to a request that died; a retry may take it over. */
const PENDING_MS = 5 * 60 * 1000;
const MAX_STORED_BYTES = 256 * 1024;

export interface StoredResponse {
  status: number;
  body: unknown;
}

export type Begin =
  { kind: 'new'; done(response: StoredResponse): Promise<void>; abandon(): Promise<void> } | { kind: 'replay'; response: StoredResponse };

/**
 * Idempotency-Key on create routes: the first request with a key runs and its 2xx answer is kept for
 * 24 h; a retry with the same key, caller and request gets that answer again (`Idempotent-Replayed:
 * true`) instead of creating twice. A failed request (4xx, 5xx) keeps nothing, so it can be retried.
 * Rows are keyed by a hash of tenant, caller and key; the stored answer is encrypted with a key
 * derived from the client's Idempotency-Key, which is never stored, so the table alone reveals no
 * response (a created token's secret, for example).
 */
export class IdempotencyStore {
  private ready: Promise<void> | null = null;
  private lastPurge = 0;

  constructor(private readonly sequelize: Sequelize) {}

  /** The header's value checked: undefined when absent; 400 when malformed. */
  static parseKey(value: string | undefined): string | undefined {
    if (value === undefined || value === '') return undefined;
    if (!KEY.test(value)) {
      throw new ValidationError('Idempotency-Key must be 1-255 visible ASCII characters', [
        { path: 'headers.idempotency-key', message: 'invalid' },
      ]);
    }
    return value;
  }

  private ensureTable(): Promise<void> {
    this.ready ??= this.sequelize
      .query(
        'CREATE TABLE IF NOT EXISTS cms_idempotency_keys (id CHAR(64) NOT NULL PRIMARY KEY, fingerprint CHAR(64) NOT NULL, state VARCHAR(8) NOT NULL, ' +
          'response TEXT NULL, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL)',
      )
      .then(
        () => undefined,
        (err) => {
          this.ready = null;
          throw err;
        },
      );
    return this.ready;
  }

  async begin(
    scope: { tenantId: string; principal: string; key: string },
    request: { method: string; route: string; params: unknown; query: unknown; body: unknown },
  ): Promise<Begin> {
    await this.ensureTable();
    await this.purge();
    const id = createHash('sha256')
      .update(stringify({ t: scope.tenantId, p: scope.principal, k: scope.key }) ?? '')
      .digest('hex');
    const fingerprint = createHash('sha256')
      .update(stringify(request) ?? '')
      .digest('hex');
    const secret = Buffer.from(hkdfSync('sha256', scope.key, id, 'cms idempotent response', 32));
    const now = Date.now();
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await this.sequelize.query(
          'INSERT INTO cms_idempotency_keys (id, fingerprint, state, response, created_at, expires_at) VALUES (?, ?, ?, NULL, ?, ?)',
          {
            replacements: [id, fingerprint, 'pending', now, now + PENDING_MS],
            type: QueryTypes.INSERT,
          },
        );
        return {
          kind: 'new',
          done: async (response) => {
            const text = JSON.stringify(response);
            if (Buffer.byteLength(text) > MAX_STORED_BYTES) return this.drop(id);
            await this.sequelize.query('UPDATE cms_idempotency_keys SET state = ?, response = ?, expires_at = ? WHERE id = ?', {
              replacements: ['done', seal(secret, text), Date.now() + IDEMPOTENCY_TTL_MS, id],
              type: QueryTypes.UPDATE,
            });
          },
          abandon: () => this.drop(id),
        };
      } catch (err) {
        if (!(err instanceof UniqueConstraintError)) throw err;
      }
      const [row] = await this.sequelize.query<{
        fingerprint: string;
        state: string;
        response: string | null;
        expires_at: number | string;
      }>('SELECT fingerprint, state, response, expires_at FROM cms_idempotency_keys WHERE id = ?', {
        replacements: [id],
        type: QueryTypes.SELECT,
      });
      if (!row) continue; // released meanwhile: take it
      if (Number(row.expires_at) < now) {
        await this.sequelize.query('DELETE FROM cms_idempotency_keys WHERE id = ? AND expires_at < ?', {
          replacements: [id, now],
          type: QueryTypes.DELETE,
        });
        continue;
      }
      if (row.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError();
      if (row.state !== 'done' || !row.response) throw new IdempotencyKeyInUseError();
      return { kind: 'replay', response: JSON.parse(open(secret, row.response)) as StoredResponse };
    }
    throw new IdempotencyKeyInUseError();
  }

  private async drop(id: string): Promise<void> {
    await this.sequelize.query('DELETE FROM cms_idempotency_keys WHERE id = ?', { replacements: [id], type: QueryTypes.DELETE });
  }

  /** Expired rows go at most once a minute (the table stays bounded by the 24 h lifetime). */
  private async purge(): Promise<void> {
    const now = Date.now();
    if (now - this.lastPurge < 60000) return;
    this.lastPurge = now;
    await this.sequelize.query('DELETE FROM cms_idempotency_keys WHERE expires_at < ?', { replacements: [now], type: QueryTypes.DELETE });
  }
}

function seal(key: Buffer, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64');
}

function open(key: Buffer, sealed: string): string {
  const raw = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

/**
 * The dispatcher's side of the protocol, for a route declared `idempotent` and a request with a valid
 * Idempotency-Key: a replay answers the kept response (`Idempotent-Replayed: true`); otherwise `run`
 * answers and a plain 2xx JSON answer is kept, anything else (an error, a stream) releases the key.
 */
export async function runIdempotently(
  store: IdempotencyStore,
  key: string,
  request: { ctx: Context; route: RegisteredRoute; identity: Identity; input: { params: unknown; query: unknown; body: unknown } },
  run: () => Promise<void>,
): Promise<void> {
  const { ctx, route, identity, input } = request;
  const principal = identity.userId ? `user:${identity.userId}` : `${identity.kind}:${ctx.ip}`;
  // A multipart body is streamed by the handler: its size and type stand for it in the fingerprint.
  const body = route.request.multipart ? { length: ctx.get('content-length'), type: ctx.get('content-type').split(';')[0] } : input.body;
  const begun = await store.begin(
    { tenantId: identity.tenantId, principal, key },
    { method: ctx.method, route: route.path, params: input.params, query: input.query, body },
  );
  if (begun.kind === 'replay') {
    ctx.status = begun.response.status;
    ctx.body = begun.response.body;
    ctx.set('Idempotent-Replayed', 'true');
    return;
  }
  try {
    await run();
  } catch (err) {
    await begun.abandon().catch((e) => ctx.state.logger.warn({ err: e }, 'idempotency key not released'));
    throw err;
  }
  const plain =
    ctx.body !== null &&
    typeof ctx.body === 'object' &&
    !Buffer.isBuffer(ctx.body) &&
    typeof (ctx.body as { pipe?: unknown }).pipe !== 'function';
  if (ctx.status >= 200 && ctx.status < 300 && plain) {
    await begun.done({ status: ctx.status, body: ctx.body }).catch((e) => ctx.state.logger.warn({ err: e }, 'idempotent answer not kept'));
  } else await begun.abandon().catch(() => undefined);
}
