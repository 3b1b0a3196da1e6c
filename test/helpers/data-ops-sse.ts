/** A reader of a server-sent event stream (GET /api/data-ops/events) for tests. */
export interface SseClient {
  /** The events received so far ({event, data} parsed), comments excluded. */
  events: Array<{ event: string; data: any }>;
  comments: string[];
  /** Resolves with the first event (from now or before) that matches, or rejects after timeoutMs. */
  next(match: (e: { event: string; data: any }) => boolean, timeoutMs?: number): Promise<{ event: string; data: any }>;
  status: number;
  contentType: string | null;
  /** Whether the server ended the stream (the body finished; a close() of ours does not count). */
  readonly ended: boolean;
  /** Resolves once the server has ended the stream, or rejects after timeoutMs. */
  whenEnded(timeoutMs?: number): Promise<void>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseClient> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events: SseClient['events'] = [];
  const comments: string[] = [];
  const waiters: Array<() => void> = [];
  let ended = false;
  let markEnded: () => void = () => undefined;
  const endedPromise = new Promise<void>((resolve) => (markEnded = resolve));
  if (res.ok && res.body) {
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) {
            ended = true;
            markEnded();
            for (const w of waiters.splice(0)) w();
            return;
          }
          buffer += decoder.decode(value, { stream: true });
          let cut: number;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            if (block.startsWith(':')) comments.push(block.slice(1).trim());
            else {
              const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
              const data = /^data: (.*)$/m.exec(block)?.[1];
              events.push({ event, data: data ? JSON.parse(data) : null });
            }
            for (const w of waiters.splice(0)) w();
          }
        }
      } catch {
        // aborted
      }
    })();
  }
  return {
    events,
    comments,
    status: res.status,
    contentType: res.headers.get('content-type'),
    async next(match, timeoutMs = 10000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = events.find(match);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no matching server-sent event within ${timeoutMs} ms (got ${JSON.stringify(events)})`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 100);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    get ended() {
      return ended;
    },
    whenEnded(timeoutMs = 10000) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the server did not end the stream within ${timeoutMs} ms`)), timeoutMs);
      });
      return Promise.race([endedPromise, timeout]).finally(() => clearTimeout(timer));
    },
    close: () => abort.abort(),
  };
}
