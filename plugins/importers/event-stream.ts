import { PassThrough } from 'node:stream';
import type { Context } from 'koa';

export interface EventStream {
  /** Writes one server-sent event (nothing once the client has gone). */
  send(event: string, data: unknown): void;
  /** A comment line (keeps proxies from closing a quiet stream). */
  comment(text: string): void;
  /** The client closed the connection. */
  readonly closed: boolean;
  end(): void;
}

/** Answers the request with a text/event-stream body the caller writes events to. */
export function openEventStream(ctx: Context): EventStream {
  const out = new PassThrough();
  let closed = false;
  ctx.req.on('close', () => {
    if (!ctx.res.writableFinished) closed = true;
  });
  ctx.status = 200;
  ctx.type = 'text/event-stream';
  ctx.set('Cache-Control', 'no-cache, no-transform');
  ctx.set('X-Accel-Buffering', 'no');
  ctx.body = out;
  return {
    send(event, data) {
      if (!closed) out.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    comment(text) {
      if (!closed) out.write(`: ${text}\n\n`);
    },
    get closed() {
      return closed;
    },
    end: () => out.end(),
  };
}
