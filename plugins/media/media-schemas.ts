import { z } from 'zod';

/** Response shapes (documentation: the OpenAPI document). */
export const mediaSchema = z.object({
  _id: z.string(),
  filename: z.string(),
  mimeType: z.string(),
  size: z.number(),
  url: z.string().meta({ description: '/files/<relative path>' }),
  checksum: z.string().meta({ description: 'SHA-256 of the bytes, hex' }),
  width: z.number().optional(),
  height: z.number().optional(),
  thumbnails: z.record(z.string(), z.object({ url: z.string(), width: z.number(), height: z.number() })).optional(),
  folderId: z.string().nullable(),
  private: z.boolean(),
  originalName: z.string(),
  ownerId: z.string().nullable(),
  storage: z.string(),
  sharedLinks: z.array(
    z.object({
      id: z.string(),
      expiresAt: z.string().nullable(),
      expired: z.boolean(),
      hasPassword: z.boolean(),
      createdAt: z.string(),
      createdBy: z.string().nullable(),
    }),
  ),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const folderSchema = z.object({
  _id: z.string(),
  name: z.string(),
  parentId: z.string().nullable(),
  itemCount: z.number(),
  createdAt: z.string(),
});

export const folderName = z
  .string()
  .trim()
  .min(1)
  .max(191)
  .refine((n) => !/[/\\\u0000-\u001f\u007f]/.test(n), 'no slashes or control characters');

export const idParam = z.object({ id: z.string().uuid() });
