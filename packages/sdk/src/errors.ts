// Errors as typed exceptions: every failure of a call is a CmsError carrying the API's stable error `code`, the
// HTTP `status` and the other fields of the documented error body (docs/reference/error-catalogue.md:
// `{success: false, error: CODE, message, ...}`) as `details`. Codes that do not come from the server (the network
// failed, an answer that is not JSON) have codes of their own, listed in ClientErrorCode.
import type { ApiErrorCode } from './api-types.gen.js';

export type { ApiErrorCode };

/** Codes the client itself gives: no answer, an answer that is not the API's, a closed subscription socket. */
export type ClientErrorCode = 'NETWORK_ERROR' | 'INVALID_RESPONSE' | 'SETUP_INCOMPLETE' | 'SUBSCRIPTION_CLOSED' | 'WEBSOCKET_UNAVAILABLE';

/** Every code a CmsError may carry: the server's catalogue and the client's own. */
export type CmsErrorCode = ApiErrorCode | ClientErrorCode;

/** One problem of a refused request (VALIDATION_ERROR): where (`body.title`, `query.filter`) and what. */
export interface CmsIssue {
  path: string;
  message: string;
}

const ENVELOPE_KEYS = new Set(['success', 'error', 'code', 'message']);

/** A failed call: the API's error answer, a GraphQL error, or a client-side failure (status 0). */
export class CmsError<C extends string = CmsErrorCode> extends Error {
  /** The stable error code (`ENTRY_NOT_FOUND`, `VALIDATION_ERROR`, `NETWORK_ERROR` …). */
  readonly code: C;
  /** The HTTP status; 0 when there was no answer (network) or for a closed subscription socket. */
  readonly status: number;
  /** The error body's other fields (`issues`, `retryAfterSeconds`, `fields`, `limit` …), as the server sent them. */
  readonly details: Readonly<Record<string, unknown>>;
  /** The server's X-Request-Id of the call, to find it in the server's log. */
  readonly requestId: string | undefined;

  constructor(code: C, message: string, status: number, details: Record<string, unknown> = {}, requestId?: string) {
    super(message);
    this.name = 'CmsError';
    this.code = code;
    this.status = status;
    this.details = details;
    this.requestId = requestId;
  }

  /** VALIDATION_ERROR's list of problems (empty for other codes). */
  get issues(): readonly CmsIssue[] {
    return Array.isArray(this.details.issues) ? (this.details.issues as CmsIssue[]) : [];
  }

  /** Seconds to wait before trying again (RATE_LIMITED, ACCOUNT_LOCKED, DATABASE_BUSY, MAINTENANCE …), if the server said. */
  get retryAfterSeconds(): number | undefined {
    const value = Number(this.details.retryAfterSeconds);
    return Number.isFinite(value) && value > 0 ? value : undefined;
  }
}

/** Whether `err` is a CmsError (with this code, when given): narrows `err.code` in TypeScript. */
export function isCmsError<C extends CmsErrorCode>(err: unknown, code?: C): err is CmsError<C> {
  return err instanceof CmsError && (code === undefined || err.code === code);
}

/** The CmsError for an error answer: `{success: false, error, message, ...}` (or a 2FA route's `{message}`). */
export function errorFromBody(status: number, body: unknown, headers: Headers): CmsError {
  const b = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  // GraphQL refusals (parse, validation, limits) answer the GraphQL shape: {errors: [{message, extensions: {code}}]}.
  const first = Array.isArray(b.errors) ? (b.errors[0] as { message?: unknown; extensions?: { code?: unknown } } | undefined) : undefined;
  const raw = [b.error, b.code, first?.extensions?.code].find((c): c is string => typeof c === 'string');
  const code = raw && /^[A-Z][A-Z0-9_]*$/.test(raw) ? raw : `HTTP_${status}`;
  const said = [b.message, first?.message].find((m): m is string => typeof m === 'string' && m !== '');
  const message = said ?? `The request failed with HTTP ${status}`;
  const details: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(b)) if (!ENVELOPE_KEYS.has(k)) details[k] = v;
  const retry = Number(headers.get('retry-after'));
  if (details.retryAfterSeconds === undefined && Number.isFinite(retry) && retry > 0) details.retryAfterSeconds = retry;
  return new CmsError(code as CmsErrorCode, message, status, details, headers.get('x-request-id') ?? undefined);
}
