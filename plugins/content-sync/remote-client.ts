/**
 * Calls to a channel's remote instance (Node's fetch, undici): the API key as a bearer token, a timeout
 * per request (AbortSignal.timeout; streamed bodies: an idle timeout), bounded retries with a doubling
 * pause for what is safe to repeat, and every failure mapped to a coded error that names the remote's
 * URL (never its key, never the remote's body: its status in words and its error code only):
 * SYNC_REMOTE_UNREACHABLE, SYNC_REMOTE_TIMEOUT, SYNC_REMOTE_AUTH_FAILED, SYNC_REMOTE_REFUSED,
 * SYNC_REMOTE_PROTOCOL. Every request goes through the kernel's outbound guard (kernel/outbound.ts):
 * an internal address, literal or resolved when connecting, is SYNC_URL_FORBIDDEN unless
 * CMS_OUTBOUND_ALLOW_PRIVATE=true.
 * Transfers resume: a download continues with `Range: bytes=<bytes on disk>-`, an upload asks the
 * remote for the bytes it has (GET .../uploads/:id) and continues from there.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { JobInterruptedError, guardedFetch, OutboundAddressError } from '../../kernel/sdk.js';
import {
  remoteCode,
  statusInWords,
  SyncRemoteAuthError,
  SyncRemoteProtocolError,
  SyncRemoteRefusedError,
  SyncRemoteTimeoutError,
  SyncRemoteUnreachableError,
  SyncUrlForbiddenError,
} from './errors.js';
import type { ContentSyncOptions } from './options.js';
import type { RemoteHello } from './public.js';

export const REMOTE_BASE = '/api/content-sync/remote';

type ClientOptions = Pick<ContentSyncOptions, 'requestTimeoutMs' | 'retries' | 'retryDelayMs'> & {
  /** CMS_OUTBOUND_ALLOW_PRIVATE: the remote may be an internal address. */
  allowPrivate: boolean;
};

/** An error answer of the remote, kept for callers that handle one status themselves (409 of an upload). */
interface Answer {
  status: number;
  body: any;
}

/** The channel URL without credentials, query or trailing slash (what messages show). */
export function displayUrl(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
}

type FetchInit = { method?: string; headers?: Record<string, string>; body?: string | Uint8Array; signal?: AbortSignal };

const isNetworkError = (err: unknown) => err instanceof SyncRemoteUnreachableError || err instanceof SyncRemoteTimeoutError;
const retryableStatus = (status: number) => status === 502 || status === 503 || status === 504;

export class RemoteClient {
  readonly url: string;

  constructor(
    url: string,
    private readonly apiKey: string,
    private readonly options: ClientOptions,
    private readonly signal?: AbortSignal,
  ) {
    this.url = displayUrl(url);
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { authorization: `Bearer ${this.apiKey}`, accept: 'application/json', ...extra };
  }

  private checkAborted(): void {
    if (this.signal?.aborted) throw new JobInterruptedError();
  }

  /** fetch with the request timeout; a network failure or timeout becomes the coded error. */
  private async fetchOnce(path: string, init: FetchInit, timeoutMs = this.options.requestTimeoutMs): Promise<Response> {
    this.checkAborted();
    const signals = [AbortSignal.timeout(timeoutMs), ...(this.signal ? [this.signal] : [])];
    try {
      return await this.fetch(`${this.url}${path}`, { ...init, signal: AbortSignal.any(signals) });
    } catch (err) {
      throw this.networkError(err, timeoutMs);
    }
  }

  /** Through the outbound guard; redirects are not followed (a 3xx is not a content-sync answer). */
  private fetch(url: string, init: FetchInit): Promise<Response> {
    return guardedFetch(url, init, this.options.allowPrivate);
  }

  private networkError(err: unknown, timeoutMs: number): Error {
    this.checkAborted();
    if (err instanceof OutboundAddressError) return new SyncUrlForbiddenError(err.host);
    const e = err as { name?: string; code?: string; cause?: { code?: string } };
    if (e?.name === 'TimeoutError') return new SyncRemoteTimeoutError(this.url, timeoutMs);
    // Node's error code (ECONNREFUSED, ENOTFOUND, CERT_HAS_EXPIRED...), never a message that could carry remote text.
    const code = e?.code ?? e?.cause?.code;
    const reason = typeof code === 'string' && /^[A-Z0-9_]{2,64}$/.test(code) ? code : 'network error';
    return new SyncRemoteUnreachableError(this.url, String(reason).slice(0, 200));
  }

  /** The JSON envelope of an answer; non-2xx answers are thrown as coded errors unless `pass` keeps them. */
  private async read(res: Response, pass: (status: number) => boolean = () => false): Promise<Answer> {
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw this.networkError(err, this.options.requestTimeoutMs);
    }
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      throw new SyncRemoteProtocolError(
        this.url,
        `${statusInWords(res.status)} with a body that is not JSON (is this the CMS's base URL?)`,
      );
    }
    if (res.ok) {
      if (!body || body.success !== true) throw new SyncRemoteProtocolError(this.url, 'no success envelope');
      return { status: res.status, body: body.data };
    }
    if (pass(res.status)) return { status: res.status, body };
    if (res.status === 401 || res.status === 403) throw new SyncRemoteAuthError(this.url, res.status);
    throw new SyncRemoteRefusedError(this.url, res.status, remoteCode(body?.error));
  }

  /**
   * One JSON request. `retry`: repeat after a network failure, a timeout or a 502/503/504 answer (at
   * most `retries` times); only for requests that are safe to repeat.
   */
  async call<T = any>(
    method: string,
    path: string,
    options: { json?: unknown; retry?: boolean; pass?: (status: number) => boolean; timeoutMs?: number } = {},
  ): Promise<{ status: number; data: T }> {
    const attempts = options.retry ? this.options.retries + 1 : 1;
    let last: unknown;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await this.pause(attempt);
      try {
        const res = await this.fetchOnce(
          path,
          {
            method,
            headers: this.headers(options.json !== undefined ? { 'content-type': 'application/json' } : {}),
            body: options.json !== undefined ? JSON.stringify(options.json) : undefined,
          },
          options.timeoutMs,
        );
        const answer = await this.read(res, (s) => (options.retry === true && retryableStatus(s)) || (options.pass?.(s) ?? false));
        if (options.retry && retryableStatus(answer.status) && !options.pass?.(answer.status)) {
          last = new SyncRemoteRefusedError(this.url, answer.status, remoteCode(answer.body?.error));
          continue;
        }
        return { status: answer.status, data: answer.body as T };
      } catch (err) {
        last = err;
        if (!isNetworkError(err)) throw err;
      }
    }
    throw last;
  }

  private async pause(attempt: number): Promise<void> {
    await sleep(this.options.retryDelayMs * 2 ** (attempt - 1), undefined, this.signal ? { signal: this.signal } : undefined).catch(() =>
      this.checkAborted(),
    );
  }

  hello(): Promise<RemoteHello> {
    return this.call<RemoteHello>('GET', `${REMOTE_BASE}/hello`, { retry: true }).then((a) => {
      if (typeof a.data?.installationId !== 'string' || !Array.isArray(a.data.collections))
        throw new SyncRemoteProtocolError(this.url, 'the hello answer has no installationId');
      return a.data;
    });
  }

  /**
   * Downloads `path` into `dest` (appending to what is already there), resuming with Range after a
   * dropped connection or a stalled body: at most `retries` attempts in a row without progress.
   * Verifies the size and the SHA-256 at the end.
   */
  async download(path: string, dest: string, size: number, sha256: string): Promise<void> {
    let failures = 0;
    for (;;) {
      const have = await stat(dest).then(
        (s) => s.size,
        () => 0,
      );
      if (have >= size) break;
      if (failures > this.options.retries) throw new SyncRemoteUnreachableError(this.url, 'the download kept failing');
      if (failures > 0) await this.pause(failures);
      const before = have;
      try {
        await this.downloadFrom(path, dest, have);
      } catch (err) {
        if (!isNetworkError(err)) throw err;
      }
      const after = await stat(dest).then(
        (s) => s.size,
        () => 0,
      );
      failures = after > before ? 0 : failures + 1;
    }
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(dest)) hash.update(chunk as Buffer);
    const digest = hash.digest('hex');
    const actual = (await stat(dest)).size;
    if (actual !== size || digest !== sha256)
      throw new SyncRemoteProtocolError(this.url, `the downloaded package does not match its announced size and SHA-256 (${actual} bytes)`);
  }

  private async downloadFrom(path: string, dest: string, offset: number): Promise<void> {
    const idle = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => idle.abort(new DOMException('idle', 'TimeoutError')), this.options.requestTimeoutMs);
    };
    arm();
    const signals = [idle.signal, ...(this.signal ? [this.signal] : [])];
    let res: Response;
    try {
      res = await this.fetch(`${this.url}${path}`, {
        headers: this.headers(offset > 0 ? { range: `bytes=${offset}-` } : {}),
        signal: AbortSignal.any(signals),
      });
    } catch (err) {
      clearTimeout(timer);
      throw this.networkError(err, this.options.requestTimeoutMs);
    }
    try {
      if (res.status !== 200 && res.status !== 206) {
        await this.read(res);
        throw new SyncRemoteProtocolError(this.url, `the package download answered ${statusInWords(res.status)}`);
      }
      if (offset > 0 && res.status !== 206)
        throw new SyncRemoteProtocolError(this.url, 'the remote ignored the Range of a resumed download');
      const out = createWriteStream(dest, { flags: offset > 0 ? 'a' : 'w' });
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          arm();
          if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
        }
      } finally {
        await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
      }
    } catch (err) {
      if (
        err instanceof SyncRemoteProtocolError ||
        err instanceof SyncRemoteRefusedError ||
        err instanceof SyncRemoteAuthError ||
        err instanceof SyncUrlForbiddenError
      )
        throw err;
      throw this.networkError(err, this.options.requestTimeoutMs);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Uploads `file` (`size` bytes) as transfer `transferId` in chunks of `chunkBytes`
   * (`Content-Range: bytes start-end/total`). After a dropped connection, a timeout or a 409 (the remote
   * has another offset) it asks the remote for its offset and continues from there; at most `retries`
   * failures in a row without progress.
   */
  async upload(transferId: string, file: string, size: number, chunkBytes: number): Promise<void> {
    const path = `${REMOTE_BASE}/uploads/${encodeURIComponent(transferId)}`;
    const handle = await open(file, 'r');
    try {
      let offset = 0;
      let failures = 0;
      if (size <= 0) throw new SyncRemoteProtocolError(this.url, 'an empty package cannot be uploaded');
      while (offset < size) {
        if (failures > this.options.retries) throw new SyncRemoteUnreachableError(this.url, 'the upload kept failing');
        if (failures > 0) {
          await this.pause(failures);
          try {
            const at = await this.call<{ received: number; total: number }>('GET', path, { retry: true, pass: (s) => s === 404 });
            offset = at.status === 404 ? 0 : Number(at.data.received) || 0;
          } catch (err) {
            if (!isNetworkError(err)) throw err;
            failures++;
            continue;
          }
          if (offset >= size) break;
        }
        const length = Math.min(chunkBytes, size - offset);
        const chunk = Buffer.alloc(length);
        await handle.read(chunk, 0, length, offset);
        let answer: Answer;
        try {
          const res = await this.fetchOnce(path, {
            method: 'PUT',
            headers: this.headers({
              'content-type': 'application/octet-stream',
              'content-range': `bytes ${offset}-${offset + length - 1}/${size}`,
            }),
            body: chunk,
          });
          answer = await this.read(res, (s) => s === 409 || retryableStatus(s));
        } catch (err) {
          if (!isNetworkError(err)) throw err;
          failures++;
          continue;
        }
        if (answer.status === 409 || retryableStatus(answer.status)) {
          if (answer.status === 409 && answer.body?.error !== 'SYNC_TRANSFER_OFFSET')
            throw new SyncRemoteRefusedError(this.url, 409, remoteCode(answer.body?.error));
          failures++;
          continue;
        }
        const received = Number(answer.body?.received);
        if (!Number.isSafeInteger(received) || received < 0 || received > size)
          throw new SyncRemoteProtocolError(this.url, 'the upload answer has no valid received offset');
        failures = received > offset ? 0 : failures + 1;
        offset = received;
      }
    } finally {
      await handle.close();
    }
  }
}
