import { STATUS_CODES } from 'node:http';
import { defineError } from '../../kernel/sdk.js';

/** `401 Unauthorized`: a remote's status in words (a remote's body is never repeated). */
export const statusInWords = (status: number) => `${status} ${STATUS_CODES[status] ?? 'Unknown status'}`;
/** A remote's error code when it looks like one (A-Z, 0-9, _), else null: free text of a remote is never repeated. */
export const remoteCode = (code: unknown): string | null => (typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,63}$/.test(code) ? code : null);

// Channels.

export class SyncChannelNotFoundError extends defineError(
  'SYNC_CHANNEL_NOT_FOUND',
  404,
  'No content-sync channel with this id in your tenant (GET /api/content-sync/channels lists them).',
  (channelId: string) => `No content-sync channel '${channelId.slice(0, 100)}'`,
) {}

export class SyncChannelExistsError extends defineError(
  'SYNC_CHANNEL_EXISTS',
  409,
  'A content-sync channel with this name already exists in your tenant.',
  (name: string) => `A channel named '${name}' already exists`,
) {}

export class SyncUrlForbiddenError extends defineError(
  'SYNC_URL_FORBIDDEN',
  400,
  "A content-sync channel's URL is or resolves to a loopback, link-local, private or unique-local address (checked when the channel is created and again at each connection); allowed only when the operator sets CMS_OUTBOUND_ALLOW_PRIVATE=true.",
  (host: string) => ({
    message: `The channel URL's host ${host.slice(0, 300)} is or resolves to an internal address (loopback, link-local, private or unique-local); content sync does not connect there unless the operator sets CMS_OUTBOUND_ALLOW_PRIVATE=true`,
  }),
) {}

// Calls to the remote instance (never with the key, and never with the remote's body, in the message).

export class SyncRemoteUnreachableError extends defineError(
  'SYNC_REMOTE_UNREACHABLE',
  502,
  'The remote instance of the channel could not be reached (connection refused or reset, DNS, TLS), also after the bounded retries.',
  (url: string, reason: string) => ({ message: `The remote ${url} could not be reached: ${reason}`, expose: true }),
) {}

export class SyncRemoteTimeoutError extends defineError(
  'SYNC_REMOTE_TIMEOUT',
  504,
  'The remote instance did not answer in time (CONTENT_SYNC_REQUEST_TIMEOUT_MS), also after the bounded retries.',
  (url: string, ms: number) => ({ message: `The remote ${url} did not answer within ${ms} ms`, expose: true }),
) {}

export class SyncRemoteAuthError extends defineError(
  'SYNC_REMOTE_AUTH_FAILED',
  400,
  "The remote instance refused the channel's API key: unknown, revoked or expired (401), or without the content:sync permission (403). A client error: give the channel a valid key of the remote instance.",
  (url: string, status: number) => ({
    message:
      status === 403
        ? `The remote ${url} refused the channel's API key (${statusInWords(status)}): the key lacks the content:sync (and content:read) permission there`
        : `The remote ${url} refused the channel's API key (${statusInWords(status)}): the key is unknown, revoked or expired there`,
  }),
) {}

export class SyncRemoteRefusedError extends defineError(
  'SYNC_REMOTE_REFUSED',
  502,
  "The remote instance answered a content-sync request with an error; the message names the remote's status in words and its error code (e.g. PLAN_STALE, LOCK_CONTENTION, VALIDATION_ERROR), never the remote's text.",
  (url: string, status: number, code: string | null) => ({
    message: `The remote ${url} answered ${statusInWords(status)}${code ? ` (${code})` : ''}`,
    expose: true,
    extra: { remoteStatus: status, remoteError: code ?? 'UNKNOWN' },
  }),
) {}

export class SyncRemoteProtocolError extends defineError(
  'SYNC_REMOTE_PROTOCOL',
  502,
  "The remote's answer is not a content-sync answer (not the JSON envelope, a checksum that does not match, or a transfer that does not advance): a wrong URL or an incompatible version.",
  (url: string, reason: string) => ({ message: `Unexpected answer from the remote ${url}: ${reason}`, expose: true }),
) {}

export class SyncRemoteApplyFailedError extends defineError(
  'SYNC_REMOTE_APPLY_FAILED',
  502,
  'The remote instance applied the pushed plan without success (outcome rollback, partial or failure); the message names its outcome and error code. Nothing is recorded as agreed.',
  (outcome: string, code: string | null) => ({
    message: `The remote apply ended with outcome '${remoteCode(outcome.toUpperCase()) ? outcome : 'unknown'}'${code ? ` (${code})` : ''}; the remote instance's audit log has the details`,
    expose: true,
  }),
) {}

export class SyncPackageInvalidError extends defineError(
  'SYNC_PACKAGE_INVALID',
  502,
  'The package received from the remote failed validation as an import upload (the message lists the problems); nothing is planned.',
  (problems: string[]) => ({
    message: `The remote's package is not valid: ${problems.slice(0, 5).join('; ').slice(0, 800)}`,
    expose: true,
  }),
) {}

// The remote-facing endpoints (served to a peer).

export class SyncTransferNotFoundError extends defineError(
  'SYNC_TRANSFER_NOT_FOUND',
  404,
  'No open content-sync transfer (upload or package) with this id in your tenant; transfers are pruned 24 hours after they started.',
  (id: string) => `No content-sync transfer '${id.slice(0, 100)}'`,
) {}

export class SyncTransferOffsetError extends defineError(
  'SYNC_TRANSFER_OFFSET',
  409,
  'A chunk of a content-sync upload starts beyond the bytes received so far (`received` in the body): resend from there.',
  (received: number, total: number) => ({
    message: `The chunk does not start at the received offset ${received}`,
    extra: { received, total },
  }),
) {}

export class SyncTransferLimitError extends defineError(
  'SYNC_TRANSFER_LIMIT',
  413,
  'A content-sync transfer is larger than CONTENT_SYNC_MAX_TRANSFER_BYTES, a chunk larger than four times the chunk size, or the tenant has CONTENT_SYNC_MAX_OPEN_TRANSFERS open transfers already.',
  (message: string) => message,
) {}

export class SyncTransferIncompleteError extends defineError(
  'SYNC_TRANSFER_INCOMPLETE',
  409,
  'A content-sync upload is planned before all its bytes arrived, or its SHA-256 differs from the one announced.',
  (message: string) => message,
) {}

export class SyncRangeError extends defineError(
  'SYNC_RANGE_NOT_SATISFIABLE',
  416,
  'The Range of a content-sync package download starts at or beyond its end (Content-Range: bytes */<size> gives the size).',
  (size: number) => ({ message: `The range is outside the package (${size} bytes)`, headers: { 'Content-Range': `bytes */${size}` } }),
) {}
