import { StorageError } from '../../lib/storage/storage-error.js';

const REFUSED = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'AccessDenied', 'Forbidden', 'InvalidToken', 'ExpiredToken']);
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'TimeoutError']);

/**
 * Turns an AWS SDK failure into a StorageError with a message an operator can act on. SDK messages
 * carry no credentials; the endpoint is named, never a key.
 */
export function s3Failure(err: unknown, what: string, where: string): StorageError {
  if (err instanceof StorageError) return err;
  const e = err as { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  const name = e.name ?? 'Error';
  if (name === 'NoSuchKey' || name === 'NotFound' || (status === 404 && name !== 'NoSuchBucket')) {
    return new StorageError('NOT_FOUND', 'No such file in storage', { cause: err });
  }
  if (name === 'InvalidRange' || status === 416)
    return new StorageError('INVALID_RANGE', 'The byte range is outside the file', { cause: err });
  if (REFUSED.has(name) || status === 401 || status === 403) {
    return new StorageError(
      'REMOTE_REFUSED',
      `The object store at ${where} refused to ${what} (${name}): check MEDIA_ACCESS_KEY_ID, MEDIA_SECRET_ACCESS_KEY and the bucket policy`,
      { cause: err },
    );
  }
  if (name === 'NoSuchBucket')
    return new StorageError('REMOTE_FAILED', `The bucket at ${where} does not exist (MEDIA_CLOUD_BUCKET)`, { cause: err });
  if (UNREACHABLE.has(e.code ?? '') || UNREACHABLE.has(name)) {
    return new StorageError('REMOTE_FAILED', `Cannot reach the object store at ${where} to ${what} (${e.code ?? name})`, { cause: err });
  }
  return new StorageError('REMOTE_FAILED', `The object store at ${where} failed to ${what}: ${name}${status ? ` (HTTP ${status})` : ''}`, {
    cause: err,
  });
}
