import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import {
  AppError,
  AuthenticationRequiredError,
  type BusEvent,
  type EventBus,
  type IdentifyRequest,
  hasPermission,
  type Identity,
  type Logger,
} from '../../kernel/sdk.js';
import { bearerHash, onIdentityChange } from '../auth/public.js';
import { EventStreamLimitError, EventStreamNotAcceptedError, TooManyStreamsError } from './errors.js';
import { DATA_OPERATION_COMPLETED, type DataOperationCompleted } from './public.js';

/**
 * What watching completions needs (the stream and the GraphQL subscription): the figures of the data
 * operations of the tenant are read-only operational state, as on the dashboard.
 */
export const STREAM_PERMISSION = 'dashboard:read';

/** Whose streams count together: a user's sessions, API keys and website tokens share one allowance. */
export function streamOwner(identity: Identity): string {
  const meta = identity.meta ?? {};
  const who = identity.userId ?? `${identity.kind}:${String(meta.apiKeyId ?? meta.websiteTokenId ?? meta.sessionHash ?? '')}`;
  return `${identity.tenantId}\u0000${who}`;
}

interface OpenStream {
  identity: Identity;
  owner: string;
  /** SHA-256 of the bearer value the stream was opened with (BEARER_CHANGED names those). */
  bearer?: string;
  request: Context['req'];
  end: (reason?: string) => void;
  checking: boolean;
  /** Another re-check was asked for while one ran (it may have read the identity before the change): run again. */
  again: boolean;
}

/**
 * GET /api/data-ops/events: the completion of every data operation of the caller's tenant, from every
 * instance (the event bus), as server-sent events `event: completed` with data = DataOperationCompleted.
 * A comment line every `heartbeatMs` keeps proxies from closing a quiet stream. At most
 * `maxStreamsPerIdentity` streams per identity (a user with its sessions, keys and tokens; 429
 * TOO_MANY_STREAMS beyond) and `maxStreams` per instance (503 EVENT_STREAM_LIMIT beyond); the route's
 * permission is checked before either. The identity behind a stream is resolved again at once after an
 * event that concerns it (sign-out, revocation, block, deletion, role change, from any instance) and at
 * every heartbeat (expiry): a stream whose session or token ended, or whose caller lost the route's
 * permission, ends with `event: ended`. close() ends them all (shutdown).
 */
export class CompletionStreams {
  private readonly open = new Set<OpenStream>();
  private readonly offIdentityChange: () => void;

  constructor(
    private readonly events: Pick<EventBus, 'subscribe'>,
    private readonly options: { maxStreams: number; maxStreamsPerIdentity: number; heartbeatMs: number },
    private readonly identify: () => IdentifyRequest,
    private readonly logger?: Pick<Logger, 'warn'>,
  ) {
    this.offIdentityChange = onIdentityChange(events, (concerns) => {
      for (const stream of this.open) if (concerns(stream.identity, stream.bearer)) void this.recheck(stream);
    });
  }

  get count(): number {
    return this.open.size;
  }

  /** Open streams of the identity's owner (streamOwner). */
  countOf(identity: Identity): number {
    const owner = streamOwner(identity);
    let n = 0;
    for (const s of this.open) if (s.owner === owner) n++;
    return n;
  }

  serve(ctx: Context, identity: Identity, domain: string | null = null): void {
    if (!/\btext\/event-stream\b/i.test(ctx.get('accept'))) throw new EventStreamNotAcceptedError();
    // Signed in only, even where the guest role was granted the permission (as the GraphQL subscription).
    if (identity.kind === 'guest') throw new AuthenticationRequiredError();
    if (this.countOf(identity) >= this.options.maxStreamsPerIdentity) throw new TooManyStreamsError(this.options.maxStreamsPerIdentity);
    if (this.open.size >= this.options.maxStreams) throw new EventStreamLimitError();
    const out = new PassThrough();
    const write = (text: string) => {
      if (!out.writableEnded) out.write(text);
    };
    const stream: OpenStream = {
      identity,
      owner: streamOwner(identity),
      bearer: bearerHash(ctx.get('authorization') || undefined),
      request: ctx.req,
      end: () => undefined,
      checking: false,
      again: false,
    };
    const unsubscribe = this.events.subscribe(DATA_OPERATION_COMPLETED, (event: BusEvent) => {
      const payload = event.payload as DataOperationCompleted;
      if (payload?.tenantId !== stream.identity.tenantId || (domain !== null && payload.domain !== domain)) return;
      write(`event: completed\ndata: ${JSON.stringify(payload)}\n\n`);
    });
    const heartbeat = setInterval(() => {
      write(': heartbeat\n\n');
      void this.recheck(stream);
    }, this.options.heartbeatMs);
    heartbeat.unref();
    stream.end = (reason?: string) => {
      if (!this.open.delete(stream)) return;
      clearInterval(heartbeat);
      unsubscribe();
      if (reason) write(`event: ended\ndata: ${JSON.stringify({ reason })}\n\n`);
      out.end();
    };
    this.open.add(stream);
    ctx.req.on('close', () => stream.end());
    ctx.res.on('close', () => stream.end());
    ctx.status = 200;
    ctx.type = 'text/event-stream';
    ctx.set('Cache-Control', 'no-cache, no-transform');
    ctx.set('X-Accel-Buffering', 'no');
    ctx.body = out;
    // The first bytes now: the client sees the stream open (and the subscription is in place).
    write(': connected\n\n');
  }

  /**
   * Resolves the stream's identity again from its request (cookie or bearer): ended, another user or
   * tenant, or without the route's permission ends the stream; otherwise it goes on with the fresh identity.
   * A transient failure (database or cache down) keeps it, as a session cookie is kept then.
   */
  private async recheck(stream: OpenStream): Promise<void> {
    if (!this.open.has(stream)) return;
    if (stream.checking) {
      stream.again = true;
      return;
    }
    stream.checking = true;
    try {
      let now: Identity;
      try {
        now = await this.identify()(stream.request);
      } catch (err) {
        if (err instanceof AppError && err.expose) stream.end('identity-ended');
        else this.logger?.warn({ err }, 'data-ops event stream: identity re-check failed; stream kept');
        return;
      }
      const before = stream.identity;
      if (now.kind !== before.kind || now.userId !== before.userId || now.tenantId !== before.tenantId) return stream.end('identity-ended');
      if (!hasPermission(now, STREAM_PERMISSION)) return stream.end('permission-revoked');
      stream.identity = now;
    } finally {
      stream.checking = false;
      if (stream.again) {
        stream.again = false;
        void this.recheck(stream);
      }
    }
  }

  close(): void {
    this.offIdentityChange();
    for (const stream of [...this.open]) stream.end();
  }
}
