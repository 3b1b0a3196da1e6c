import { defineError } from '../../kernel/sdk.js';

export class SystemJobUnknownError extends defineError(
  'SYSTEM_JOB_UNKNOWN',
  404,
  'No system job with this name on this instance (GET /api/system-jobs lists them).',
  (name: string) => `No system job '${name}' (GET /api/system-jobs lists them)`,
) {}
