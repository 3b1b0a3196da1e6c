import { AppError } from '../../kernel/errors.js';

/**
 * Why a storage operation failed. The HTTP status and code follow the kernel's catalogue, so an error
 * that reaches the error handler unmapped still answers sensibly; the media plugin maps by `reason`.
 */
export type StorageErrorReason =
  'INVALID_PATH' | 'INVALID_RANGE' | 'NOT_FOUND' | 'ALREADY_EXISTS' | 'NOT_CONFIGURED' | 'REMOTE_REFUSED' | 'REMOTE_FAILED';

const STATUS: Record<StorageErrorReason, readonly [code: string, status: number]> = {
  INVALID_PATH: ['VALIDATION_ERROR', 400],
  INVALID_RANGE: ['VALIDATION_ERROR', 400],
  NOT_FOUND: ['NOT_FOUND', 404],
  ALREADY_EXISTS: ['CONFLICT', 409],
  NOT_CONFIGURED: ['SERVICE_UNAVAILABLE', 503],
  REMOTE_REFUSED: ['INTERNAL_ERROR', 500],
  REMOTE_FAILED: ['INTERNAL_ERROR', 500],
};

export class StorageError extends AppError {
  constructor(
    readonly reason: StorageErrorReason,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    const [code, status] = STATUS[reason];
    super(code, status, message, { cause: options.cause, expose: status < 500 || reason === 'NOT_CONFIGURED' });
  }
}
