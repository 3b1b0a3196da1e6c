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

/**
 * The folders. `folder` comes, by the kernel's precedence, from MEDIA_FOLDER in the environment, the plugin
 * option, the System Setting, else `media`. A relative folder lies under the data folder; the trash sits
 * beside the media folder.
 */
export function localDriverConfig(input: { options: LocalOptions; dataPath: string }): LocalDriverConfig {
  const { options, dataPath } = input;
  const name = options.folder?.trim() || 'media';
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
