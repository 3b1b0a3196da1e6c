import { AppError, defineError } from '../../kernel/sdk.js';

export class PackageNotFoundError extends defineError(
  'PACKAGE_NOT_FOUND',
  404,
  'No content package for this jobId or planId in your tenant: unknown, the export failed, the package was pruned (retention), or it was built on another instance whose data folder this one does not share.',
  (what: string) => `No content package for ${what}`,
) {}

export class PackageNotReadyError extends defineError(
  'PACKAGE_NOT_READY',
  409,
  'The export job of this jobId has not finished yet (queued or running): follow it with GET /api/content-export/jobs?jobId= and download when it is completed.',
  (jobId: string, status: string) => ({
    message: `The export job '${jobId}' is ${status}; the package is not ready yet`,
    extra: { status },
  }),
) {}

/** 416 with the media plugin's code (RANGE_NOT_SATISFIABLE, already in the catalogue): Content-Range gives the size. */
export const rangeNotSatisfiable = (size: number) =>
  new AppError('RANGE_NOT_SATISFIABLE', 416, 'The requested range is outside the package', {
    headers: { 'Content-Range': `bytes */${size}` },
  });
