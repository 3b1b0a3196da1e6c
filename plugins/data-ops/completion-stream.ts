import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import type { BusEvent, EventBus } from '../../kernel/events.js';
import type { Identity } from '../../kernel/http/identity.js';
import { EventStreamLimitError, EventStreamNotAcceptedError } from './errors.js';
import { DATA_OPERATION_COMPLETED, type DataOperationCompleted } from './public.js';

/**
 * GET /api/data-ops/events: the completion of every data operation of the caller's tenant, from every
 * instance (the event bus), as server-sent events `event: completed` with data = DataOperationCompleted.
 * A comment line every `heartbeatMs` keeps proxies from closing a quiet stream. At most `maxStreams`
 * streams per instance (503 EVENT_STREAM_LIMIT beyond); close() ends them all (shutdown).
 */
export class CompletionStreams {
  private readonly open = new Set<() => void>();

  constructor(
    private readonly events: Pick<EventBus, 'subscribe'>,
    private readonly options: { maxStreams: number; heartbeatMs: number },
  ) {}

  get count(): number {
    return this.open.size;
  }

  serve(ctx: Context, identity: Identity, domain: string | null = null): void {
    if (!/\btext\/event-stream\b/i.test(ctx.get('accept'))) throw new EventStreamNotAcceptedError();
    if (this.open.size >= this.options.maxStreams) throw new EventStreamLimitError();
    const out = new PassThrough();
    const write = (text: string) => {
      if (!out.writableEnded) out.write(text);
    };
    const unsubscribe = this.events.subscribe(DATA_OPERATION_COMPLETED, (event: BusEvent) => {
      const payload = event.payload as DataOperationCompleted;
      if (payload?.tenantId !== identity.tenantId || (domain !== null && payload.domain !== domain)) return;
      write(`event: completed\ndata: ${JSON.stringify(payload)}\n\n`);
    });
    const heartbeat = setInterval(() => write(': heartbeat\n\n'), this.options.heartbeatMs);
    heartbeat.unref();
    const end = () => {
      if (!this.open.delete(end)) return;
      clearInterval(heartbeat);
      unsubscribe();
      out.end();
    };
    this.open.add(end);
    ctx.req.on('close', end);
    ctx.res.on('close', end);
    ctx.status = 200;
    ctx.type = 'text/event-stream';
    ctx.set('Cache-Control', 'no-cache, no-transform');
    ctx.set('X-Accel-Buffering', 'no');
    ctx.body = out;
    // The first bytes now: the client sees the stream open (and the subscription is in place).
    write(': connected\n\n');
  }

  close(): void {
    for (const end of [...this.open]) end();
  }
}
