import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import semver from 'semver';
import { z } from 'zod';
import { BootError, type Logger } from '../../kernel/sdk.js';

const version = z.string().refine((v) => semver.valid(v) !== null, 'a semantic version such as 1.4.0');

export const advisorySchema = z.object({
  id: z.string().min(1).max(100),
  severity: z.enum(['low', 'moderate', 'medium', 'high', 'critical']),
  /** A semver range of the affected versions, e.g. `>=1.0.0 <1.2.3`. */
  affected: z
    .string()
    .max(500)
    .refine((v) => semver.validRange(v) !== null, 'a semver range such as >=1.0.0 <1.2.3'),
  fixed_in: version.nullable(),
  summary: z.string().max(2000),
});
export type Advisory = z.output<typeof advisorySchema>;

/** The versions file: `{latest, advisories: [{id, severity, affected, fixed_in, summary}]}`. */
export const versionsFileSchema = z.object({
  latest: version,
  advisories: z.array(advisorySchema).max(1000).default([]),
});
export type VersionInfo = z.output<typeof versionsFileSchema>;

export interface VersionSourceOptions {
  /** The versions file (absolute, or relative to `root`); without it `fallback` is the answer. */
  file?: string;
  root: string;
  fallback: VersionInfo;
  cacheSeconds: number;
  logger: Logger;
  now?: () => number;
}

/**
 * The latest version and the advisories, read from the versions file at most once per cache period
 * (one value, so the cache is bounded by construction). A file that turns unreadable or invalid later
 * keeps the last good value (logged, read again after a minute); at boot it stops the start.
 */
export class VersionSource {
  private value: VersionInfo | null = null;
  private expiresAt = 0;
  private loading: Promise<VersionInfo> | null = null;
  private readonly path: string | null;
  private readonly now: () => number;

  constructor(private readonly options: VersionSourceOptions) {
    this.path = options.file ? (isAbsolute(options.file) ? options.file : resolve(options.root, options.file)) : null;
    this.now = options.now ?? Date.now;
  }

  private async read(): Promise<VersionInfo> {
    const text = await readFile(this.path!, 'utf8');
    const parsed = versionsFileSchema.safeParse(JSON.parse(text));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
    return parsed.data;
  }

  /** Reads the file once at boot: a missing or invalid file stops the start with its reason. */
  async prime(): Promise<void> {
    if (!this.path) return;
    try {
      this.value = await this.read();
      this.expiresAt = this.now() + this.options.cacheSeconds * 1000;
    } catch (err) {
      throw new BootError(`Update server versions file ${this.path} is not usable: ${(err as Error).message}`);
    }
  }

  async current(): Promise<VersionInfo> {
    if (!this.path) return this.options.fallback;
    if (this.value && this.now() < this.expiresAt) return this.value;
    this.loading ??= this.read()
      .then((info) => {
        this.value = info;
        this.expiresAt = this.now() + this.options.cacheSeconds * 1000;
        return info;
      })
      .catch((err: Error) => {
        this.options.logger.error(
          { file: this.path, reason: err.message },
          'update server versions file not usable; keeping the last good one',
        );
        this.expiresAt = this.now() + 60_000;
        if (this.value) return this.value;
        throw err;
      })
      .finally(() => {
        this.loading = null;
      });
    return this.loading;
  }
}

/** The advisories whose affected range holds `current` (pre-releases included). */
export function advisoriesFor(info: VersionInfo, current: string): Advisory[] {
  return info.advisories.filter((a) => semver.satisfies(current, a.affected, { includePrerelease: true }));
}
