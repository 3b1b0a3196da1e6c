import { AppError, defineErrorCode } from '../../kernel/errors.js';

defineErrorCode('SETUP_ALREADY_COMPLETE', 403, 'Setup is complete; the setup endpoints (except status and reinitialize) are closed.');
export class SetupAlreadyCompleteError extends AppError {
  constructor() {
    super('SETUP_ALREADY_COMPLETE', 403, 'Setup is already complete');
  }
}

defineErrorCode('SETUP_NOT_SEEDED', 409, 'Setup cannot complete before the database is seeded (POST /api/setup/seed-db).');
export class SetupNotSeededError extends AppError {
  constructor() {
    super('SETUP_NOT_SEEDED', 409, 'Seed the database first (POST /api/setup/seed-db)');
  }
}

defineErrorCode('DB_CONNECTION_FAILED', 400, "The database test failed; the message carries the driver's reason.");
export class DbConnectionFailedError extends AppError {
  constructor(reason: string) {
    super('DB_CONNECTION_FAILED', 400, reason);
  }
}

defineErrorCode('DB_RESTART_REQUIRED', 409, 'Seeding a database other than the one this instance runs on needs its DB_* settings and a restart.');
export class DbRestartRequiredError extends AppError {
  constructor(running: string) {
    super('DB_RESTART_REQUIRED', 409, `This instance runs on ${running}. To use another database, set its DB_* settings (or DB_URL) and restart, then seed.`);
  }
}

defineErrorCode('DB_DRIVER_MISSING', 400, 'The database driver package is not installed; manualCommand says how to install it (the instance never installs packages itself).');
export class DbDriverMissingError extends AppError {
  constructor(type: string, manualCommand: string) {
    super('DB_DRIVER_MISSING', 400, `The ${type} driver is not installed. Run \`${manualCommand}\` in the CMS folder and restart.`, { extra: { manualCommand } });
  }
}
