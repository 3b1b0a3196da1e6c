/**
 * The attachments of an import run (runner.ts): a record's file is stored in the media library before its
 * entry is written, from the job folder (never outside it) or, when the run fetches remote files, from its URL.
 * A file that cannot be stored is a warning; the record is still written, without its media.
 */
import { createReadStream } from 'node:fs';
import { realpath, rm } from 'node:fs/promises';
import { basename, join, sep } from 'node:path';
import type { ImportedEntity } from './format-contract.js';
import { messageOf, type RunContext } from './run-context.js';
import type { PreparedItem } from './prepare-batch.js';
import { fetchRemoteFile } from './remote-fetch.js';

/** What mediaFor needs of a record. */
type MediaRecord = Pick<ImportedEntity, 'entity' | 'externalId' | 'file' | 'line'>;

/** A URL for a warning: any user:password part is left out. */
const withoutCredentials = (url: string) => url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, '$1');

/** The body of an attachment's record, its media stored first; one per run (it remembers the URLs it fetched). */
export function attachmentBodies(run: RunContext): (item: PreparedItem) => Promise<Record<string, unknown>> {
  const { input, workRoot, warn } = run;
  /** Remote attachments fetched in this run, by URL (one media record per URL). */
  const fetched = new Map<string, string | null>();
  let fetchCount = 0;
  const remoteMedia = async (e: MediaRecord, url: string): Promise<string | null> => {
    if (fetched.has(url)) return fetched.get(url)!;
    const target = join(workRoot, `remote-${++fetchCount}`);
    let id: string | null = null;
    try {
      await fetchRemoteFile(url, target, input.fetchRemote!);
      const name = e.file?.filename || basename(new URL(url).pathname) || 'attachment';
      id = (await input.media.upload(name, createReadStream(target)))._id;
    } catch (err) {
      warn(`${e.entity} ${e.externalId}: ${withoutCredentials(url)} not fetched: ${messageOf(err)}`, e.line);
    } finally {
      await rm(target, { force: true });
    }
    fetched.set(url, id);
    return id;
  };

  const mediaFor = async (e: MediaRecord): Promise<string | null> => {
    if (!e.file?.path && e.file?.url && input.fetchRemote) return remoteMedia(e, e.file.url);
    if (!e.file?.path) return null;
    let real: string;
    try {
      real = await realpath(e.file.path);
    } catch {
      warn(`${e.entity} ${e.externalId}: attachment file missing`, e.line);
      return null;
    }
    if (!real.startsWith(workRoot + sep)) {
      warn(`${e.entity} ${e.externalId}: attachment path outside the job folder refused`, e.line);
      return null;
    }
    try {
      return (await input.media.upload(e.file.filename || 'attachment', createReadStream(real)))._id;
    } catch (err) {
      warn(`${e.entity} ${e.externalId}: attachment not stored: ${messageOf(err)}`, e.line);
      return null;
    }
  };

  /** An attachment's record: its media first (as before the bulk path), then its body. */
  return async (item: PreparedItem): Promise<Record<string, unknown>> => {
    const body = { ...item.body };
    const media = run.prepareTargets[item.entity]?.mediaField;
    if (media) {
      const id = await mediaFor(item);
      if (id) body[media] = id;
    } else await mediaFor(item);
    return body;
  };
}
