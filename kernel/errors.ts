/**
 * The one error hierarchy, with one root: CmsError (a stable `code`). AppError (an HTTP status, the
 * code the client sees) and BootError (a boot failure, printed by the CLI; never reaches HTTP) derive
 * from it. The error handler shows an AppError's `message` to clients only when it is exposed (status
 * < 500, or a 5xx written for clients); anything that is not an AppError answers 500 INTERNAL_ERROR.
 * ERROR_CATALOGUE is the list the README documents (a test keeps the two in step): defineError adds
 * the code there and returns the class, so code and status are spelled once.
 */
export interface ErrorCatalogueEntry {
  code: string;
  status: number;
  description: string;
}

export const ERROR_CATALOGUE: ErrorCatalogueEntry[] = [];

/**
 * Adds a code to the catalogue without a class (codes that travel in another shape: GraphQL errors,
 * import stream events). For a code with an error class, use defineError. The README's error table
 * lists every code of the kernel and the built-in plugins.
 */
export function defineErrorCode(code: string, status: number, description: string): void {
  const existing = ERROR_CATALOGUE.find((e) => e.code === code);
  if (existing && (existing.status !== status || existing.description !== description)) {
    throw new Error(`Error code '${code}' is already defined differently`);
  }
  if (!existing) ERROR_CATALOGUE.push({ code, status, description });
}

/** The root of every error the kernel and its plugins raise on purpose: a message and a stable code. */
export class CmsError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }
}

/** What an AppError carries besides code, status and message. */
export interface AppErrorOptions {
  /** Extra top-level fields rendered beside `error` and `message` (e.g. retryAfterSeconds). */
  extra?: Record<string, unknown>;
  /** Response headers to set with the error (e.g. Retry-After). */
  headers?: Record<string, string>;
  cause?: unknown;
  /** Whether clients see the message (default: status < 500). */
  expose?: boolean;
}

/** An error answered over HTTP with its status and code. */
export class AppError extends CmsError {
  readonly status: number;
  /** Extra top-level fields rendered beside `error` and `message` (e.g. retryAfterSeconds). */
  readonly extra: Record<string, unknown>;
  /** Response headers to set with the error (e.g. Retry-After). */
  readonly headers: Record<string, string>;

  constructor(code: string, status: number, message: string, options: AppErrorOptions = {}) {
    super(code, message, { cause: options.cause });
    this.status = status;
    this.extra = options.extra ?? {};
    this.headers = options.headers ?? {};
    this.expose = options.expose ?? status < 500;
  }

  /** Whether clients see the message: client errors, and server errors written for clients (503). */
  readonly expose: boolean;
}

/** A message, or a message with the AppError options (extra fields, headers, cause, expose). */
export type ErrorBody = string | ({ message: string } & AppErrorOptions);

/** The Retry-After header and the `retryAfterSeconds` field of an answer that says when to try again. */
export function retryAfter(seconds: number): { headers: Record<string, string>; extra: { retryAfterSeconds: number } } {
  return { headers: { 'Retry-After': String(seconds) }, extra: { retryAfterSeconds: seconds } };
}

/** The class defineError returns: constructed with the parameters of its message function. */
export interface DefinedErrorClass<A extends unknown[]> {
  new (...args: A): AppError;
  readonly prototype: AppError;
  readonly code: string;
  readonly status: number;
}

/**
 * Registers a catalogue entry (as defineErrorCode) and returns an AppError class for it, so code and
 * status are written once. `message` is what the constructor makes of its arguments; its parameters
 * become the constructor's (typed, defaults included):
 *
 *   export class ThemeNotFoundError extends defineError('THEME_NOT_FOUND', 404, 'No theme with this id.',
 *     (message = 'No active theme') => message) {}
 *   export class AccountLockedError extends defineError('ACCOUNT_LOCKED', 403, '...',
 *     (retryAfterSeconds: number) => ({ message: `Locked; try again in ${retryAfterSeconds} s`, extra: { retryAfterSeconds } })) {}
 *
 * - a function returns the message, or `{message, extra?, headers?, cause?, expose?}`;
 * - a string or such an object is a fixed answer (the constructor takes no arguments);
 * - without `message`, the constructor takes the message: `new XError(message)`.
 *
 * Extending the result (`class XError extends defineError(...) {}`) keeps the class name (`err.name`)
 * and gives a type of the same name; a class with its own fields adds a constructor that calls super
 * with the same arguments. Used directly, the class is named after its code (THEME_NOT_FOUND:
 * ThemeNotFoundError).
 */
// (F rather than its parameters as the type argument: a parameter's default, `(message = 'Not found')`, then types it.)
export function defineError<F extends (...args: never[]) => ErrorBody>(
  code: string,
  status: number,
  description: string,
  message: F,
): DefinedErrorClass<Parameters<F>>;
export function defineError(code: string, status: number, description: string, message: ErrorBody): DefinedErrorClass<[]>;
export function defineError(code: string, status: number, description: string): DefinedErrorClass<[message: string]>;
export function defineError(
  code: string,
  status: number,
  description: string,
  message?: ErrorBody | ((...args: any[]) => ErrorBody),
): DefinedErrorClass<any[]> {
  defineErrorCode(code, status, description);
  const render: (...args: any[]) => ErrorBody =
    typeof message === 'function'
      ? message
      : message === undefined
        ? (text: string) => text
        : typeof message === 'string'
          ? () => message
          : // A fixed answer: each error gets its own extra and headers objects.
            () => ({ ...message, extra: { ...message.extra }, headers: { ...message.headers } });
  const Defined = class extends AppError {
    static readonly code = code;
    static readonly status = status;
    constructor(...args: any[]) {
      const body = render(...args);
      if (typeof body === 'string') super(code, status, body);
      else {
        const { message: text, ...options } = body;
        super(code, status, text, options);
      }
    }
  };
  const name = `${code.toLowerCase().replace(/(?:^|_)([a-z0-9])/g, (_, c: string) => c.toUpperCase())}Error`;
  Object.defineProperty(Defined, 'name', { value: name });
  return Defined;
}

/** A field of a request that does not fit its schema. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** Keeps `issues` as a field (callers read it); `extra.issues` only when there are some. */
export class ValidationError extends defineError(
  'VALIDATION_ERROR',
  400,
  'The request body, query or path parameters do not match the route schema, or the JSON is malformed.',
  (message: string, issues: ValidationIssue[] = []) => ({ message, extra: issues.length ? { issues } : {} }),
) {
  constructor(
    message: string,
    readonly issues: ValidationIssue[] = [],
  ) {
    super(message, issues);
  }
}

export class AuthenticationRequiredError extends defineError(
  'AUTHENTICATION_REQUIRED',
  401,
  'The route needs an identity and the request has none.',
  (message = 'Authentication required') => message,
) {}

export class ForbiddenError extends defineError(
  'FORBIDDEN',
  403,
  'The identity lacks the permission the route or its namespace declares, or the namespace is not mapped (fail closed).',
  (message = 'You do not have permission to do this') => message,
) {}

export class NotFoundError extends defineError(
  'NOT_FOUND',
  404,
  'No route or resource at this address.',
  (message = 'Not found') => message,
) {}

export class MethodNotAllowedError extends defineError(
  'METHOD_NOT_ALLOWED',
  405,
  'The path exists but not for this HTTP method; the Allow header lists the methods.',
  (allowed: string[]) => ({ message: `Method not allowed; use ${allowed.join(', ')}`, headers: { Allow: allowed.join(', ') } }),
) {}

export class CsrfRejectedError extends defineError(
  'CSRF_REJECTED',
  403,
  'An unsafe request (POST, PUT, PATCH, DELETE) signed in by the session cookie came from a page of another origin (Sec-Fetch-Site, else Origin); nothing was done. Bearer tokens and API keys are not affected.',
  (why: string) =>
    `Refused: ${why}, signed in by this browser's session cookie. Use the admin UI on this site, or a bearer token or API key.`,
) {}

export class ConflictError extends defineError('CONFLICT', 409, 'The request conflicts with the current state of the resource.') {}

export class LockedError extends defineError(
  'LOCKED',
  409,
  'A lock (migrations, audit chain, data operation) is held by another operation and the wait timed out.',
  (name: string, waitedMs: number) => `Lock '${name}' is held by another operation; gave up after ${waitedMs} ms`,
) {}

export class PayloadTooLargeError extends defineError(
  'PAYLOAD_TOO_LARGE',
  413,
  'The request body is larger than the configured limit (http.bodyLimit).',
  (limit: string) => `Request body is larger than the limit of ${limit}`,
) {}

export class UnsupportedMediaTypeError extends defineError(
  'UNSUPPORTED_MEDIA_TYPE',
  415,
  'The route expects a JSON body and the Content-Type is something else.',
  (message = 'Content-Type must be application/json') => message,
) {}

export class RateLimitedError extends defineError(
  'RATE_LIMITED',
  429,
  'Too many requests for this path from this client; retry after the Retry-After seconds (60).',
  { message: 'Too many requests; try again in 60 seconds', ...retryAfter(60) },
) {}

export class InternalError extends defineError(
  'INTERNAL_ERROR',
  500,
  'An unexpected failure; the message is generic and the details are in the log under the X-Request-Id.',
  (cause?: unknown) => ({ message: 'Internal server error', cause }),
) {}

export class ServiceUnavailableError extends defineError(
  'SERVICE_UNAVAILABLE',
  503,
  'The instance is still booting (before READY), shutting down, or the plugin behind the route has not booted yet.',
  (message = 'The service is starting; try again shortly') => ({ message, headers: { 'Retry-After': '5' }, expose: true }),
) {}

export class NotReadyError extends defineError(
  'NOT_READY',
  503,
  'Readiness probe (GET /api/health/ready): the instance should get no new traffic: it is booting (before READY), draining for shutdown, or cannot reach its database.',
  (message = 'The instance is not ready') => ({ message, headers: { 'Retry-After': '1' }, expose: true }),
) {}

/**
 * The database could not be reached (connection refused, dropped or timed out): the request did not
 * get its answer, the client retries. A write answered with this may or may not have been committed
 * (the connection can drop after the commit), so a retried write should be idempotent.
 */
export class DatabaseUnavailableError extends defineError(
  'DATABASE_UNAVAILABLE',
  503,
  'The database could not be reached (connection refused, dropped or timed out); retry after the Retry-After seconds. A write answered with this may or may not have been committed.',
  (message = 'The database is unreachable; try again shortly') => ({ message, ...retryAfter(2) }),
) {}

/**
 * Raised while booting: bad config, bad manifests, dependency problems. Never reaches HTTP (not an
 * AppError: one that escapes into a request answers 500 INTERNAL_ERROR); the CLI prints its message.
 */
export class BootError extends CmsError {
  constructor(message: string, code = 'BOOT_FAILED') {
    super(code, message);
  }
}

/** A plugin or registry contract was broken by the code that added to it. */
export class ContractError extends BootError {
  constructor(message: string) {
    super(message, 'CONTRACT_BROKEN');
  }
}
