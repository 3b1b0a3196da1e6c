import { defineError } from '../../kernel/errors.js';

export class MaintenanceModeError extends defineError(
  'MAINTENANCE_MODE',
  503,
  'The MAINTENANCE_MODE setting is on: the instance answers only administrators (and health, sign-in, the admin UI files and setup) until it is switched off; retry after Retry-After seconds.',
  (retryAfterSeconds: number) => ({
    message: 'The site is down for maintenance; try again later',
    headers: { 'Retry-After': String(retryAfterSeconds) },
    extra: { retryAfterSeconds },
    expose: true,
  }),
) {}
