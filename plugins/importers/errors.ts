import { defineError, defineErrorCode } from '../../kernel/sdk.js';

export class ImportFormatUnknownError extends defineError(
  'IMPORT_FORMAT_UNKNOWN',
  400,
  'The format named in the request is not a registered import format (GET /api/importers/sources lists them).',
  (format: string, known: string[]) => `Unknown import format '${format}'; available: ${known.join(', ') || 'none'}`,
) {}

export class ImportFormatMismatchError extends defineError(
  'IMPORT_FORMAT_MISMATCH',
  400,
  'The upload is not in the format named by the request (its detector gives it no confidence, or the upload was validated as another format).',
) {}

export class ImportUploadNotFoundError extends defineError(
  'IMPORT_UPLOAD_NOT_FOUND',
  404,
  'No validated upload with this id for the caller (or none at all when uploadId is omitted); validate a file first.',
  (id?: string) => (id ? `No validated upload '${id}'` : 'No validated upload: POST the file to /api/importers/validate first'),
) {}

export class ImportUploadInvalidError extends defineError(
  'IMPORT_UPLOAD_INVALID',
  409,
  'The upload did not validate (blocked reasons, or no format detected) or its files are gone (retention); validate the file again.',
) {}

export class ImportPlanNotFoundError extends defineError(
  'IMPORT_PLAN_NOT_FOUND',
  404,
  'No import plan with this id in your tenant.',
  (id: string) => `No import plan '${id}'`,
) {}

export class ImportNotConfirmedError extends defineError(
  'IMPORT_NOT_CONFIRMED',
  400,
  'POST /api/importers/run needs confirmed: true.',
  'Confirm the import: send confirmed: true',
) {}

export class ImportAlreadyRunError extends defineError(
  'IMPORT_ALREADY_RUN',
  409,
  'This import plan is already running or has run; preview again for a new plan.',
  (planId: string, jobId: string | null) => ({
    message: `Plan '${planId}' already runs or ran${jobId ? ` (job ${jobId})` : ''}`,
    extra: jobId ? { jobId } : {},
  }),
) {}

export class ImportJobNotFoundError extends defineError(
  'IMPORT_JOB_NOT_FOUND',
  404,
  'No import job with this id in your tenant.',
  (id: string) => `No import job '${id}'`,
) {}

/** A run that failed as a whole (what it created is removed again): the engine's outcome rollback carries this code. */
export class ImportFailedError extends defineError(
  'IMPORT_FAILED',
  500,
  'An import run failed part-way (sent as the `error` event of the import stream; the job view carries the reason).',
) {}

/** A hostile or oversized upload refused while it was analysed: `limit` is the option's name (maxDecompressedBytes...), a field the import workers read. */
export class ImportLimitExceededError extends defineError(
  'IMPORT_LIMIT_EXCEEDED',
  413,
  'The upload goes past an import limit (decompressed size, compression ratio, archive entries, line length or analysis time); the message and `limit` name the setting (plugins.options.importers, IMPORT_* variables). Nothing of it is kept.',
  (limit: string, message: string) => ({ message: `The upload is refused: ${message}`, extra: { limit } }),
) {
  constructor(
    readonly limit: string,
    message: string,
  ) {
    super(limit, message);
  }
}

defineErrorCode(
  'IMPORT_INTERRUPTED',
  503,
  'The instance stopped during an import (sent as the `error` event of the import stream); the run resumes as a background job on the next start: follow it at GET /api/importers/jobs/:jobId.',
);
