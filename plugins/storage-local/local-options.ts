import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { BootError } from '../../kernel/sdk.js';
import type { LocalDriverConfig } from './local-driver.js';

/** plugins.options['storage-local']. */
export const localOptionsSchema = z.strictObject({
  /** MEDIA_FOLDER: relative to the data folder, or absolute. */
  folder: z.string().min(1).optional(),
  /** Where deleted files go; default: the media folder's path with `-trash` appended (beside it). */
  trashFolder: z.string().min(1).optional(),
});
export type LocalOptions = z.output<typeof localOptionsSchema>;

export function parseLocalOptions(raw: unknown): LocalOptions {
  const parsed = localOptionsSchema.safeParse(raw);
  if (!parsed.success)
    throw new BootError(
      `Invalid plugins.options['storage-local']: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

/**
 * The folders, by precedence: MEDIA_FOLDER from the environment, the plugin option, the System Setting,
 * then `media`. A relative folder lies under the data folder; the trash sits beside the media folder.
 */
export function localDriverConfig(input: {
  env: { folder?: unknown };
  options: LocalOptions;
  settings: Record<string, unknown>;
  dataPath: string;
}): LocalDriverConfig {
  const { env, options, settings, dataPath } = input;
  const fromEnv = typeof env.folder === 'string' ? env.folder.trim() : undefined;
  const setting = typeof settings.MEDIA_FOLDER === 'string' && settings.MEDIA_FOLDER.trim() ? settings.MEDIA_FOLDER.trim() : undefined;
  const name = fromEnv || options.folder || setting || 'media';
  const folder = isAbsolute(name) ? resolve(name) : resolve(dataPath, name);
  if (folder === resolve(dataPath) || folder === resolve('/')) {
    throw new BootError(
      `MEDIA_FOLDER '${name}' would put media files in the data folder itself (or the file system root); name a folder below it`,
    );
  }
  const trashFolder = options.trashFolder ? resolve(dataPath, options.trashFolder) : `${folder}-trash`;
  if (trashFolder === folder || trashFolder.startsWith(`${folder}/`) || folder.startsWith(`${trashFolder}/`)) {
    throw new BootError(`The media trash folder (${trashFolder}) must lie beside the media folder (${folder}), not inside it`);
  }
  return { folder, trashFolder };
}
