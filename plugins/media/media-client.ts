import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { ValidationError, type Identity, assertPermission } from '../../kernel/sdk.js';
import { listQuerySchema, type MediaService } from './media-service.js';
import type { MediaView } from './media-view.js';
import { writeTempFile } from './receive-upload.js';

function parse<T extends z.ZodType>(schema: T, value: unknown, where: string): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => ({ path: [where, ...i.path.map(String)].join('.'), message: i.message }));
  throw new ValidationError(`Invalid ${where}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
}

export type MediaListOptions = Partial<{
  page: number;
  limit: number;
  folderId: string;
  type: string;
  search: string;
  sort: string;
  private: 'true' | 'false';
}>;

/**
 * The in-process media SDK (container key `mediaClient`): what the REST API does, called as functions,
 * with the same permission checks, tenant scoping, limits, type detection, allow list and event.
 * Acts as the identity it was made for (a request's, or the system identity for server-side work).
 */
export class MediaClient {
  constructor(
    private readonly media: MediaService,
    readonly identity: Identity,
  ) {}

  async list(options: MediaListOptions = {}) {
    assertPermission(this.identity, 'media:read');
    return this.media.list(this.identity, parse(listQuerySchema, options, 'options'));
  }

  async get(id: string): Promise<MediaView> {
    assertPermission(this.identity, 'media:read');
    return this.media.get(this.identity, id);
  }

  /** Stores bytes under a file name (its type is detected from the content); the size limit applies while reading. */
  async upload(
    filename: string,
    body: Readable | Buffer,
    options: { folderId?: string | null; private?: boolean } = {},
  ): Promise<MediaView> {
    assertPermission(this.identity, 'media:write');
    const input = parse(
      z.object({
        filename: z.string().min(1).max(255),
        folderId: z.string().uuid().nullable().default(null),
        private: z.boolean().default(false),
      }),
      { filename, ...options },
      'upload',
    );
    const limits = await this.media.limits();
    const temp = await writeTempFile(body, this.media.tmpDir, limits.maxBytes);
    try {
      return await this.media.ingest(
        this.identity,
        { tempPath: temp.tempPath, originalName: input.filename, size: temp.size },
        { folderId: input.folderId, private: input.private },
        limits,
      );
    } finally {
      await rm(temp.tempPath, { force: true });
    }
  }

  async remove(id: string): Promise<{ deleted: true; trashed: boolean }> {
    assertPermission(this.identity, 'media:write');
    return this.media.remove(this.identity, id);
  }

  async move(ids: string[], folderId: string | null): Promise<{ moved: number; notFound: string[] }> {
    assertPermission(this.identity, 'media:write');
    return this.media.move(
      this.identity,
      parse(z.array(z.string().uuid()).min(1).max(500), ids, 'ids'),
      parse(z.string().uuid().nullable(), folderId, 'folderId'),
    );
  }
}

/** Server-side work of plugins and pages: admin rights in one tenant, no user. */
export function systemIdentity(tenantId = 'default'): Identity {
  return { kind: 'user', userId: null, role: 'admin', permissions: [], tenantId, meta: { system: true } };
}

/** The container key `mediaClient`: `mediaClient(identity?)` gives a MediaClient. */
export type MediaClientFactory = (identity?: Identity) => MediaClient;
