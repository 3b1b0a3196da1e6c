import { rm } from 'node:fs/promises';
import type { default as Sharp } from 'sharp';
import { tempFileName } from './receive-upload.js';

let loaded: Promise<typeof Sharp> | undefined;
/** sharp (libvips, several MB resident) is loaded on the first image processed, not at start. */
const sharp = () => (loaded ??= import('sharp').then((m) => m.default));

export interface GeneratedThumbnail {
  name: string;
  tempPath: string;
  width: number;
  height: number;
  size: number;
}

/**
 * Displayed dimensions of a raster image (EXIF orientations 5-8 swap them), or null when sharp cannot
 * read it (the file is still stored, without dimensions or thumbnails). sharp decodes on libuv's
 * threads, off the event loop, and refuses pixel bombs (its input pixel limit).
 */
export async function imageDimensions(path: string): Promise<{ width: number; height: number } | null> {
  try {
    const m = await (await sharp())(path).metadata();
    if (!m.width || !m.height) return null;
    return (m.orientation ?? 1) >= 5 ? { width: m.height, height: m.width } : { width: m.width, height: m.height };
  } catch {
    return null;
  }
}

/**
 * WebP thumbnails, one per configured width smaller than the image's, auto-rotated from EXIF. Files
 * go to the temporary folder; the caller stores and removes them. All or nothing: a failure removes
 * the ones already made and answers none.
 */
export async function makeThumbnails(
  path: string,
  imageWidth: number,
  sizes: Record<string, number>,
  quality: number,
  tmpDir: string,
): Promise<GeneratedThumbnail[]> {
  const made: GeneratedThumbnail[] = [];
  try {
    for (const [name, width] of Object.entries(sizes).sort((a, b) => a[1] - b[1])) {
      if (width >= imageWidth) continue;
      const tempPath = `${tempFileName(tmpDir)}.${name}.webp`;
      made.push({ name, tempPath, width: 0, height: 0, size: 0 });
      const info = await (await sharp())(path).rotate().resize({ width, withoutEnlargement: true }).webp({ quality }).toFile(tempPath);
      Object.assign(made[made.length - 1]!, { width: info.width, height: info.height, size: info.size });
    }
    return made;
  } catch {
    await Promise.all(made.map((t) => rm(t.tempPath, { force: true })));
    return [];
  }
}
