// Reads a server-sent event stream answered to a POST (EventSource only does GET): fetch, then the
// body's ReadableStream, split into events on blank lines. A refusal before the stream starts is an
// ordinary JSON error and throws ApiError.
import { t } from '../../i18n/index.svelte';
import { ApiError } from '../../lib/remote';

export interface StreamEvent {
  event: string;
  data: any;
}

export function postEventStream(path: string, body: FormData, onEvent: (e: StreamEvent) => void, signal?: AbortSignal): Promise<void> {
  return readEventStream(path, { method: 'POST', body }, onEvent, signal);
}

/** The same reader for a GET stream (GET /api/importers/jobs/:id/events), cookie-authenticated like the API. */
export function getEventStream(path: string, onEvent: (e: StreamEvent) => void, signal?: AbortSignal): Promise<void> {
  return readEventStream(path, { method: 'GET' }, onEvent, signal);
}

async function readEventStream(
  path: string,
  init: { method: 'GET' | 'POST'; body?: FormData },
  onEvent: (e: StreamEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  let res: Response;
  try {
    res = await fetch(path, { ...init, credentials: 'same-origin', headers: { accept: 'text/event-stream' }, signal });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, { message: t('importers.run.unreachable') });
  }
  if (!res.ok || !res.body || !(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    let json: Record<string, unknown> = {};
    try {
      json = await res.json();
    } catch {
      json = { message: t('importers.run.httpFailed', { status: res.status }) };
    }
    throw new ApiError(res.ok ? 502 : res.status, json, res.headers.get('retry-after'));
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const dispatch = (block: string) => {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const i = line.indexOf(':');
      const field = i < 0 ? line : line.slice(0, i);
      const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (!data.length) return;
    const text = data.join('\n');
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
    onEvent({ event, data: parsed });
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value.replace(/\r\n?/g, '\n');
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      dispatch(buffer.slice(0, cut));
      buffer = buffer.slice(cut + 2);
    }
  }
  if (buffer.trim()) dispatch(buffer);
}
