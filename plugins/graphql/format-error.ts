import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { AppError, type Logger } from '../../kernel/sdk.js';

/**
 * An execution error in the GraphQL shape: `extensions.code` is the AppError's stable code (with its
 * extra fields, such as `issues` of a VALIDATION_ERROR); a server error shows a generic message and
 * goes to the log. Never a stack.
 */
export function formatError(err: GraphQLError, logger: Logger): GraphQLFormattedError {
  const original = err.originalError;
  const base = { message: err.message, ...(err.locations ? { locations: err.locations } : {}), ...(err.path ? { path: err.path } : {}) };
  if (original instanceof AppError) {
    if (!original.expose) {
      logger.error({ err: original, path: err.path }, 'graphql resolver failed');
      return { ...base, message: 'Internal server error', extensions: { code: original.code } };
    }
    return { ...base, message: original.message, extensions: { code: original.code, ...original.extra } };
  }
  if (original && !(original instanceof GraphQLError)) {
    logger.error({ err: original, path: err.path }, 'graphql resolver failed');
    return { ...base, message: 'Internal server error', extensions: { code: 'INTERNAL_ERROR' } };
  }
  return { ...base, extensions: { code: 'INTERNAL_ERROR', ...err.extensions } };
}

export function formatErrors(errors: readonly GraphQLError[] | undefined, logger: Logger): GraphQLFormattedError[] | undefined {
  return errors?.length ? errors.map((e) => formatError(e, logger)) : undefined;
}
