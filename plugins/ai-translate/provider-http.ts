import { TranslationBadResponseError, TranslationProviderError, TranslationTimeoutError } from './errors.js';
import type { ProviderHttp } from './public.js';

/** The provider's own error text from a JSON error body (LibreTranslate, OpenAI, DeepL shapes). */
function errorText(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as { error?: unknown; message?: unknown; detail?: unknown };
  if (typeof b.error === 'string') return b.error;
  if (b.error && typeof b.error === 'object' && typeof (b.error as { message?: unknown }).message === 'string')
    return (b.error as { message: string }).message;
  if (typeof b.message === 'string') return b.message;
  if (typeof b.detail === 'string') return b.detail;
  return null;
}

/** Short, one line, without the secrets (a provider may echo a key back). */
export function sanitise(text: string, secrets: string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('[redacted]');
  out = out.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return out.length > 200 ? `${out.slice(0, 200)}...` : out;
}

function reason(err: unknown): string {
  const e = err as Error & { cause?: { code?: string } };
  return e.cause?.code ? `is not reachable (${e.cause.code})` : 'is not reachable';
}

/**
 * The HTTP client handed to a provider: POST JSON with the configured timeout (the whole exchange,
 * body included) and the instance's stop signal, no redirects (a key is never sent elsewhere).
 */
export function providerHttp(provider: string, options: { timeoutMs: number; stopping: AbortSignal; secrets: string[] }): ProviderHttp {
  const timedOut = (err: unknown) => (err as Error)?.name === 'TimeoutError';
  return {
    async postJson(url, body, headers = {}) {
      const signal = AbortSignal.any([AbortSignal.timeout(options.timeoutMs), options.stopping]);
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
          body: JSON.stringify(body),
          signal,
          redirect: 'error',
        });
      } catch (err) {
        if (timedOut(err)) throw new TranslationTimeoutError(provider, options.timeoutMs);
        throw new TranslationProviderError(provider, reason(err));
      }
      let text: string;
      try {
        text = await res.text();
      } catch (err) {
        if (timedOut(err)) throw new TranslationTimeoutError(provider, options.timeoutMs);
        throw new TranslationProviderError(provider, 'broke off its answer');
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      if (!res.ok) {
        if (res.status === 401 || res.status === 403)
          throw new TranslationProviderError(provider, `refused the credentials (HTTP ${res.status}); check its API key`);
        const said = errorText(json);
        const detail = said ? `: ${sanitise(said, options.secrets)}` : '';
        throw new TranslationProviderError(provider, `answered HTTP ${res.status}${detail}`);
      }
      if (json === undefined) throw new TranslationBadResponseError(provider, 'the answer is not JSON');
      return json;
    },
  };
}

/** `base` + `/` + `path`, whatever slashes the configured address ends with. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
