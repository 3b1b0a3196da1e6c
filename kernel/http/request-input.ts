import coBody from 'co-body';
import type { Context } from 'koa';
import type { z } from 'zod';
import { UnsupportedMediaTypeError, ValidationError } from '../errors.js';
import { dropUnreadableQuery, refuseControlCharacters } from './refuse-control-characters.js';
import type { RouteRequestSchemas } from './route-table.js';

/** Validates one part of a request (`where`: params, query, body) as the router does: a ValidationError naming each path. */
export function checkInput<T>(schema: z.ZodType | undefined, value: unknown, where: string): T {
  if (!schema) return value as T;
  const result = schema.safeParse(value);
  if (result.success) return result.data as T;
  const issues = result.error.issues.map((i) => ({ path: [where, ...i.path.map(String)].join('.'), message: i.message }));
  throw new ValidationError(`Invalid request: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
}

function hasBody(ctx: Context): boolean {
  const length = ctx.request.length;
  return (length !== undefined && length > 0) || ctx.get('transfer-encoding') !== '';
}

export interface RequestInput {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

/**
 * Reads and validates params, query and the body (JSON, or a form where the route allows) against the route's schemas.
 * Synchronous for a route without a body schema (nothing to read from the socket).
 */
export function readInput(
  ctx: Context,
  schemas: RouteRequestSchemas,
  params: Record<string, string>,
  bodyLimit: string,
): RequestInput | Promise<RequestInput> {
  refuseControlCharacters(params, 'params');
  const rawQuery = schemas.tolerantQuery ? dropUnreadableQuery({ ...ctx.query }) : { ...ctx.query };
  refuseControlCharacters(rawQuery, 'query');
  const parsedParams = checkInput<Record<string, unknown>>(schemas.params, params, 'params');
  const query = checkInput<Record<string, unknown>>(schemas.query, rawQuery, 'query');
  if (!schemas.body) return { params: parsedParams, query, body: undefined };
  return readBody(ctx, schemas, bodyLimit).then((body) => ({ params: parsedParams, query, body }));
}

async function readBody(ctx: Context, schemas: RouteRequestSchemas, bodyLimit: string): Promise<unknown> {
  let body: unknown;
  if (hasBody(ctx)) {
    const form = schemas.form === true && ctx.is('application/x-www-form-urlencoded') !== false;
    if (!form && !ctx.is('application/json', 'application/*+json')) throw new UnsupportedMediaTypeError();
    try {
      body = form ? await coBody.form(ctx.req, { limit: bodyLimit }) : await coBody.json(ctx.req, { limit: bodyLimit, strict: true });
    } catch (err) {
      const e = err as { status?: number; type?: string };
      // co-body marks a JSON syntax error with status 400 and no type; size and encoding errors carry a type.
      if (e.status === 400 && !e.type) throw new ValidationError('Malformed JSON in request body');
      if (e.status === 415) throw new UnsupportedMediaTypeError('Unsupported Content-Encoding or charset');
      // zlib errors (a body that does not match its Content-Encoding) carry no status at all.
      if (e.status === undefined) throw new ValidationError('Request body could not be decoded (check Content-Encoding)');
      throw err;
    }
  }
  refuseControlCharacters(body, 'body');
  return checkInput(schemas.body, body, 'body');
}
