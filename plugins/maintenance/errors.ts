import { defineError, retryAfter } from '../../kernel/sdk.js';

export class MaintenanceModeError extends defineError(
  'MAINTENANCE_MODE',
  503,
  'The MAINTENANCE_MODE setting is on: the instance answers only administrators (and health, the setup status, sign-in and sign-out, and the admin UI files), WebSocket upgrades included, until it is switched off; retry after Retry-After seconds.',
  (retryAfterSeconds: number) => ({
    message: 'The site is down for maintenance; try again later',
    ...retryAfter(retryAfterSeconds),
    expose: true,
  }),
) {}
