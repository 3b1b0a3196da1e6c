import { defineError } from '../../kernel/errors.js';

export class BackupNotFoundError extends defineError(
  'BACKUP_NOT_FOUND',
  404,
  'No completed backup with this id (GET /api/backups lists them).',
  (id: string) => `No backup '${id}'`,
) {}

export class MaintenanceError extends defineError(
  'MAINTENANCE',
  503,
  'A backup restore is running: the instance is in maintenance and answers only administrators until it ends (Retry-After).',
  (retryAfterSeconds: number) => ({
    message: 'The instance is in maintenance (a backup restore is running); try again shortly',
    headers: { 'Retry-After': String(retryAfterSeconds) },
    extra: { retryAfterSeconds },
    expose: true,
  }),
) {}
