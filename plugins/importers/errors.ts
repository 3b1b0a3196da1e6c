import { AppError, defineErrorCode } from '../../kernel/errors.js';

defineErrorCode('IMPORT_FORMAT_UNKNOWN', 400, 'The format named in the request is not a registered import format (GET /api/importers/sources lists them).');
export class ImportFormatUnknownError extends AppError {
  constructor(format: string, known: string[]) {
    super('IMPORT_FORMAT_UNKNOWN', 400, `Unknown import format '${format}'; available: ${known.join(', ') || 'none'}`);
  }
}

defineErrorCode('IMPORT_FORMAT_MISMATCH', 400, 'The upload is not in the format named by the request (its detector gives it no confidence, or the upload was validated as another format).');
export class ImportFormatMismatchError extends AppError {
  constructor(message: string) {
    super('IMPORT_FORMAT_MISMATCH', 400, message);
  }
}

defineErrorCode('IMPORT_UPLOAD_NOT_FOUND', 404, 'No validated upload with this id for the caller (or none at all when uploadId is omitted); validate a file first.');
export class ImportUploadNotFoundError extends AppError {
  constructor(id?: string) {
    super('IMPORT_UPLOAD_NOT_FOUND', 404, id ? `No validated upload '${id}'` : 'No validated upload: POST the file to /api/importers/validate first');
  }
}

defineErrorCode('IMPORT_UPLOAD_INVALID', 409, 'The upload did not validate (blocked reasons, or no format detected) or its files are gone (retention); validate the file again.');
export class ImportUploadInvalidError extends AppError {
  constructor(message: string) {
    super('IMPORT_UPLOAD_INVALID', 409, message);
  }
}

defineErrorCode('IMPORT_PLAN_NOT_FOUND', 404, 'No import plan with this id in your tenant.');
export class ImportPlanNotFoundError extends AppError {
  constructor(id: string) {
    super('IMPORT_PLAN_NOT_FOUND', 404, `No import plan '${id}'`);
  }
}

defineErrorCode('IMPORT_NOT_CONFIRMED', 400, 'POST /api/importers/run needs confirmed: true.');
export class ImportNotConfirmedError extends AppError {
  constructor() {
    super('IMPORT_NOT_CONFIRMED', 400, 'Confirm the import: send confirmed: true');
  }
}

defineErrorCode('IMPORT_ALREADY_RUN', 409, 'This import plan is already running or has run; preview again for a new plan.');
export class ImportAlreadyRunError extends AppError {
  constructor(planId: string, jobId: string | null) {
    super('IMPORT_ALREADY_RUN', 409, `Plan '${planId}' already runs or ran${jobId ? ` (job ${jobId})` : ''}`, jobId ? { extra: { jobId } } : {});
  }
}

defineErrorCode('IMPORT_JOB_NOT_FOUND', 404, 'No import job with this id in your tenant.');
export class ImportJobNotFoundError extends AppError {
  constructor(id: string) {
    super('IMPORT_JOB_NOT_FOUND', 404, `No import job '${id}'`);
  }
}

defineErrorCode('IMPORT_FAILED', 500, 'An import run failed part-way (sent as the `error` event of the import stream; the job view carries the reason).');

defineErrorCode(
  'IMPORT_LIMIT_EXCEEDED',
  413,
  'The upload goes past an import limit (decompressed size, compression ratio, archive entries, line length or analysis time); the message and `limit` name the setting (plugins.options.importers, IMPORT_* variables). Nothing of it is kept.',
);
/** A hostile or oversized upload refused while it was analysed: `limit` is the option's name (maxDecompressedBytes...). */
export class ImportLimitExceededError extends AppError {
  constructor(readonly limit: string, message: string) {
    super('IMPORT_LIMIT_EXCEEDED', 413, `The upload is refused: ${message}`, { extra: { limit } });
  }
}

defineErrorCode('IMPORT_INTERRUPTED', 503, 'The instance stopped during an import (sent as the `error` event of the import stream); the run resumes as a background job on the next start: follow it at GET /api/importers/jobs/:jobId.');
