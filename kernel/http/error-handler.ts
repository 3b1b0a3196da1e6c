import type { Context, Next } from 'koa';
import { BaseError, ConnectionError } from 'sequelize';
import {
  DatabaseUnavailableError,
  AppError,
  InternalError,
  PayloadTooLargeError,
  ValidationError,
  AuthenticationRequiredError,
  ForbiddenError,
  NotFoundError,
  NotReadyError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
} from '../errors.js';
import type { Logger } from '../logger.js';

/** MariaDB driver codes of a connection that was refused, dropped or timed out. */
const DRIVER_CONNECTION_CODES = new Set([
  'ER_SOCKET_UNEXPECTED_CLOSE',
  'ER_CMD_CONNECTION_CLOSED',
  'ER_CONNECTION_TIMEOUT',
  'ER_GET_CONNECTION_TIMEOUT',
  'ER_POOL_ALREADY_CLOSED',
  'ER_SOCKET_TIMEOUT',
  'ER_SOCKET',
]);
/** Socket codes: they mean the database only when a Sequelize error carries them (an S3 or HTTP call has them too). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/**
 * True when the database could not be reached: a Sequelize ConnectionError (refused, acquire timeout),
 * or a query whose connection dropped (the driver marks it fatal), also when wrapped (parent/original/cause).
 */
export function isDatabaseUnreachable(err: unknown): boolean {
  type Link = { parent?: unknown; original?: unknown; cause?: unknown; code?: string; fatal?: boolean };
  let e = err as Link | undefined;
  let fromSequelize = false;
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    if (e instanceof ConnectionError) return true;
    if ((e as unknown) instanceof BaseError) fromSequelize = true;
    const code = typeof e.code === 'string' ? e.code : '';
    if (DRIVER_CONNECTION_CODES.has(code) || (e.fatal === true && code.startsWith('ER_'))) return true;
    if (fromSequelize && SOCKET_CODES.has(code)) return true;
    e = (e.parent ?? e.original ?? e.cause) as typeof e;
  }
  return false;
}

/** Maps errors thrown by libraries (body parser, http-errors, the database driver) to our classes. */
export function toAppError(err: unknown, bodyLimit: string): AppError {
  if (err instanceof AppError) return err;
  if (isDatabaseUnreachable(err)) return new DatabaseUnavailableError();
  const e = err as { status?: number; statusCode?: number; type?: string; expose?: boolean; message?: string };
  const status = e?.status ?? e?.statusCode;
  if (e?.type === 'entity.too.large' || status === 413) return new PayloadTooLargeError(bodyLimit);
  if (e?.type === 'entity.parse.failed') return new ValidationError('Malformed JSON in request body');
  if (e?.type === 'request.size.invalid' || e?.type === 'request.aborted') return new ValidationError('Request body was incomplete');
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 401) return new AuthenticationRequiredError();
    if (status === 403) return new ForbiddenError();
    if (status === 404) return new NotFoundError();
    if (status === 415) return new UnsupportedMediaTypeError('Unsupported Content-Encoding or charset');
    return new ValidationError(e.expose && e.message ? e.message : 'Bad request');
  }
  return new InternalError(err);
}

/**
 * The one error handler: renders `{success:false, error, message}` (or `{message}`, or the form
 * actions' `{success:false, error: message, code}`, as the route declares), never a stack trace; 5xx messages are generic and the details go
 * to the log with the request id.
 *
 * Logging: a real failure (5xx) is logged at error level with the error and its stack. The 503s the
 * lifecycle answers by design (ServiceUnavailableError: before READY, while shutting down, a route whose
 * plugin has not booted yet) are not failures: one info line with the code and reason, no stack.
 * Client errors (4xx) are logged at debug.
 */
export function errorHandler(logger: Logger, bodyLimit: string) {
  return async function handleErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (raw) {
      renderError(ctx, raw, logger, bodyLimit);
    }
  };
}

/** The error handler's work for one caught error (the kernel's compiled stage calls it directly). */
export function renderError(ctx: Context, raw: unknown, logger: Logger, bodyLimit: string): void {
  const err = toAppError(raw, bodyLimit);
  const log = (ctx.state.logger as Logger | undefined) ?? logger;
  if (err instanceof ServiceUnavailableError || err instanceof NotReadyError)
    log.info({ code: err.code, status: err.status, reason: err.message }, 'request refused: not serving');
  // The database stayed busy (another process, or the SQLite write queue past db.writeWaitMs): nothing was written, the client retries.
  else if (err.code === 'DATABASE_UNAVAILABLE')
    log.warn({ code: err.code, status: err.status, route: ctx.state.route?.path, err: raw }, 'request refused: database unreachable');
  else if (err.code === 'DATABASE_BUSY')
    log.warn({ code: err.code, status: err.status, route: ctx.state.route?.path }, 'request refused: database busy');
  else if (err.status >= 500) log.error({ err: raw, requestId: ctx.state.requestId }, 'request failed');
  else log.debug({ code: err.code, status: err.status }, 'request refused');
  ctx.status = err.status;
  for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
  const message = err.expose ? err.message : 'Internal server error';
  const shape = ctx.state.route?.errorShape;
  const extra = err.expose ? err.extra : {};
  if (shape === 'message') ctx.body = { message };
  else if (shape === 'form') ctx.body = { success: false, error: message, code: err.code, ...extra };
  else ctx.body = { success: false, error: err.code, message, ...extra };
}
