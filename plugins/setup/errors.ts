import { defineError } from '../../kernel/sdk.js';

export class SetupAlreadyCompleteError extends defineError(
  'SETUP_ALREADY_COMPLETE',
  403,
  'Setup is complete; the setup endpoints (except status and reinitialize) are closed.',
  'Setup is already complete',
) {}

export class SetupNotSeededError extends defineError(
  'SETUP_NOT_SEEDED',
  409,
  'Setup cannot complete before the database is seeded (POST /api/setup/seed-db).',
  'Seed the database first (POST /api/setup/seed-db)',
) {}

export class DbConnectionFailedError extends defineError(
  'DB_CONNECTION_FAILED',
  400,
  "The database test failed; the message says why in words (user or password refused, database missing, nothing listening, host not found, no answer) with the driver's reason.",
  (reason: string) => reason,
) {}

export class DbRestartRequiredError extends defineError(
  'DB_RESTART_REQUIRED',
  409,
  'Seeding a database other than the one this instance runs on needs its DB_* settings and a restart.',
  (running: string) =>
    `This instance runs on ${running}. To use another database, set its DB_* settings (or DB_URL) and restart, then seed.`,
) {}

export class DbDriverMissingError extends defineError(
  'DB_DRIVER_MISSING',
  400,
  'The database driver package is not installed; manualCommand says how to install it (the instance never installs packages itself).',
  (type: string, manualCommand: string) => ({
    message: `The ${type} driver is not installed. Run \`${manualCommand}\` in the CMS folder and restart.`,
    extra: { manualCommand },
  }),
) {}
