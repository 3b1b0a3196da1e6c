/** A reader of a server-sent event stream (GET /api/data-ops/events) for tests. */
export interface SseClient {
  /** The events received so far ({event, data} parsed), comments excluded. */
  events: Array<{ event: string; data: any }>;
  comments: string[];
  /** Resolves with the first event (from now or before) that matches, or rejects after timeoutMs. */
  next(match: (e: { event: string; data: any }) => boolean, timeoutMs?: number): Promise<{ event: string; data: any }>;
  status: number;
  contentType: string | null;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseClient> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events: SseClient['events'] = [];
  const comments: string[] = [];
  const waiters: Array<() => void> = [];
  if (res.ok && res.body) {
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
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
    close: () => abort.abort(),
  };
}
