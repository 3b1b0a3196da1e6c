/**
 * The one error hierarchy. The HTTP status and the stable `code` live on the class; the error
 * handler shows `message` to clients only when status < 500. ERROR_CATALOGUE is the list the README
 * documents (a test keeps the two in step).
 */
export interface ErrorCatalogueEntry {
  code: string;
  status: number;
  description: string;
}

export const ERROR_CATALOGUE: ErrorCatalogueEntry[] = [];

/**
 * Adds a code to the catalogue (the kernel's own below; plugins call it for theirs, next to their
 * error classes). The README's error table lists every code of the kernel and the built-in plugins.
 */
export function defineErrorCode(code: string, status: number, description: string): void {
  const existing = ERROR_CATALOGUE.find((e) => e.code === code);
  if (existing && (existing.status !== status || existing.description !== description)) {
    throw new Error(`Error code '${code}' is already defined differently`);
  }
  if (!existing) ERROR_CATALOGUE.push({ code, status, description });
}
const catalogue = defineErrorCode;

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  /** Extra top-level fields rendered beside `error` and `message` (e.g. retryAfterSeconds). */
  readonly extra: Record<string, unknown>;
  /** Response headers to set with the error (e.g. Retry-After). */
  readonly headers: Record<string, string>;

  constructor(
    code: string,
    status: number,
    message: string,
    options: { extra?: Record<string, unknown>; headers?: Record<string, string>; cause?: unknown; expose?: boolean } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.status = status;
    this.extra = options.extra ?? {};
    this.headers = options.headers ?? {};
    this.expose = options.expose ?? status < 500;
  }

  /** Whether clients see the message: client errors, and server errors written for clients (503). */
  readonly expose: boolean;
}

catalogue('VALIDATION_ERROR', 400, 'The request body, query or path parameters do not match the route schema, or the JSON is malformed.');
export class ValidationError extends AppError {
  constructor(message: string, readonly issues: Array<{ path: string; message: string }> = []) {
    super('VALIDATION_ERROR', 400, message, { extra: issues.length ? { issues } : {} });
  }
}

catalogue('AUTHENTICATION_REQUIRED', 401, 'The route needs an identity and the request has none.');
export class AuthenticationRequiredError extends AppError {
  constructor(message = 'Authentication required') {
    super('AUTHENTICATION_REQUIRED', 401, message);
  }
}

catalogue('FORBIDDEN', 403, 'The identity lacks the permission the route or its namespace declares, or the namespace is not mapped (fail closed).');
export class ForbiddenError extends AppError {
  constructor(message = 'You do not have permission to do this') {
    super('FORBIDDEN', 403, message);
  }
}

catalogue('NOT_FOUND', 404, 'No route or resource at this address.');
export class NotFoundError extends AppError {
  constructor(message = 'Not found') {
    super('NOT_FOUND', 404, message);
  }
}

catalogue('METHOD_NOT_ALLOWED', 405, 'The path exists but not for this HTTP method; the Allow header lists the methods.');
export class MethodNotAllowedError extends AppError {
  constructor(allowed: string[]) {
    super('METHOD_NOT_ALLOWED', 405, `Method not allowed; use ${allowed.join(', ')}`, {
      headers: { Allow: allowed.join(', ') },
    });
  }
}

catalogue('CONFLICT', 409, 'The request conflicts with the current state of the resource.');
export class ConflictError extends AppError {
  constructor(message: string) {
    super('CONFLICT', 409, message);
  }
}

catalogue('LOCKED', 409, 'A lock (migrations, audit chain, data operation) is held by another operation and the wait timed out.');
export class LockedError extends AppError {
  constructor(name: string, waitedMs: number) {
    super('LOCKED', 409, `Lock '${name}' is held by another operation; gave up after ${waitedMs} ms`);
  }
}

catalogue('PAYLOAD_TOO_LARGE', 413, 'The request body is larger than the configured limit (http.bodyLimit).');
export class PayloadTooLargeError extends AppError {
  constructor(limit: string) {
    super('PAYLOAD_TOO_LARGE', 413, `Request body is larger than the limit of ${limit}`);
  }
}

catalogue('UNSUPPORTED_MEDIA_TYPE', 415, 'The route expects a JSON body and the Content-Type is something else.');
export class UnsupportedMediaTypeError extends AppError {
  constructor(message = 'Content-Type must be application/json') {
    super('UNSUPPORTED_MEDIA_TYPE', 415, message);
  }
}

catalogue('RATE_LIMITED', 429, 'Too many requests for this path from this client; retry after the Retry-After seconds (60).');
export class RateLimitedError extends AppError {
  constructor() {
    super('RATE_LIMITED', 429, 'Too many requests; try again in 60 seconds', {
      headers: { 'Retry-After': '60' },
      extra: { retryAfterSeconds: 60 },
    });
  }
}

catalogue('INTERNAL_ERROR', 500, 'An unexpected failure; the message is generic and the details are in the log under the X-Request-Id.');
export class InternalError extends AppError {
  constructor(cause?: unknown) {
    super('INTERNAL_ERROR', 500, 'Internal server error', { cause });
  }
}

catalogue('SERVICE_UNAVAILABLE', 503, 'The instance is still booting (before READY), shutting down, or the plugin behind the route has not booted yet.');
export class ServiceUnavailableError extends AppError {
  constructor(message = 'The service is starting; try again shortly') {
    super('SERVICE_UNAVAILABLE', 503, message, { headers: { 'Retry-After': '5' }, expose: true });
  }
}

/** Raised while booting: bad config, bad manifests, dependency problems. Never reaches HTTP. */
export class BootError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BootError';
  }
}

/** A plugin or registry contract was broken by the code that added to it. */
export class ContractError extends BootError {
  constructor(message: string) {
    super(message);
    this.name = 'ContractError';
  }
}
