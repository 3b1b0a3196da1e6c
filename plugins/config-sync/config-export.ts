/**
 * The database side written out: the sync files (POST /api/config/export), a bundle (GET /api/config/bundle),
 * the drift between files and database (status) and the counts per type (resources).
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { IdentityLinks, matchFiles, samePair } from './identity-links.js';
import { RESOURCE_TYPES, type ResourceType } from './resources.js';
import { BUNDLE_FORMAT, canonical, checksumOf, safeName, type Bundle, type ConfigSyncCore, type ItemState } from './sync-types.js';

/**
 * Writes one file per database resource, with the resource's own id as `externalId`; keeps each existing
 * file's uuid (and records it as the resource's syncId); removes files of resources that are gone.
 */
export async function exportFiles(
  core: ConfigSyncCore,
  tenantId: string,
  types = core.types(),
): Promise<{ written: number; path: string; removed: number }> {
  const root = core.folder(tenantId);
  const db = await core.readDatabase(tenantId, types);
  const links = await core.identity.links(tenantId, types);
  let written = 0;
  let removed = 0;
  for (const type of types) {
    const dir = join(root, type);
    mkdirSync(dir, { recursive: true });
    const existing = new Map<string, string>();
    for (const entry of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
      try {
        const parsed = JSON.parse(readFileSync(join(dir, entry), 'utf8'));
        if (typeof parsed?.uuid === 'string' && parsed.uuid && parsed.uuid.length <= 64) existing.set(entry, parsed.uuid);
      } catch {
        // an unreadable file is replaced
      }
    }
    const keep = new Set<string>();
    for (const r of db.filter((d) => d.type === type)) {
      const entry = safeName(r.name);
      keep.add(entry);
      const data = JSON.parse(canonical(r.data)) as Record<string, unknown>;
      const own = IdentityLinks.syncIdOf(links, r);
      const uuid = existing.get(entry) ?? own;
      if (uuid !== own) {
        // The file's uuid is this resource's syncId from now on (the bundle download then carries the same).
        await core.identity.link(tenantId, {
          type,
          localId: r.id,
          syncId: uuid,
          externalId: IdentityLinks.linkOf(links, r)?.externalId ?? null,
        });
      }
      const body = { uuid, type, name: r.name, externalId: r.id, checksum: checksumOf(data), data };
      const target = join(dir, entry);
      const tmp = `${target}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(body, null, 2)}\n`);
      renameSync(tmp, target);
      written++;
    }
    for (const entry of readdirSync(dir)) {
      if (entry.endsWith('.json') && !keep.has(entry)) {
        rmSync(join(dir, entry), { force: true });
        removed++;
      }
    }
  }
  return { written, path: root, removed };
}

/** The database state of a tenant as a bundle (GET /api/config/bundle): the same entries the files would hold. */
export async function configBundle(core: ConfigSyncCore, tenantId: string, types = core.types()): Promise<Bundle> {
  const db = await core.readDatabase(tenantId, types);
  const links = await core.identity.links(tenantId, types);
  return {
    format: BUNDLE_FORMAT,
    version: 1,
    files: db.map((d) => {
      const data = JSON.parse(canonical(d.data)) as Record<string, unknown>;
      return {
        uuid: IdentityLinks.syncIdOf(links, d),
        type: d.type,
        name: d.name,
        checksum: checksumOf(data),
        externalId: d.id,
        data,
      };
    }),
  };
}

/** Drift between the files (or an uploaded bundle) and the database, per resource. */
export async function configStatus(core: ConfigSyncCore, tenantId: string, types = core.types(), uploadId?: string) {
  const { files, problems } = await core.sources.source(tenantId, { types, uploadId });
  const db = await core.readDatabase(tenantId, types);
  const { pairs } = matchFiles(files, db, await core.identity.links(tenantId, types));
  const items: Array<{ type: string; name: string; state: ItemState }> = pairs.map((p) => ({
    type: (p.file ?? p.db)!.type,
    name: (p.db ?? p.file)!.name,
    state: !p.db ? 'onlyInFiles' : !p.file ? 'onlyInDatabase' : samePair(p) ? 'same' : 'changed',
  }));
  // A file that cannot be read or was tampered with is drift too: its resource counts as changed (or only in files).
  for (const problem of problems) {
    const [type, entry = ''] = problem.file.split('/') as [ResourceType, string?];
    const name = decodeURIComponent(entry.replace(/\.json$/, ''));
    const item = items.find((i) => i.type === type && i.name === name);
    if (item) item.state = item.state === 'onlyInDatabase' ? 'changed' : item.state;
    else if (RESOURCE_TYPES.includes(type)) items.push({ type, name, state: 'onlyInFiles' });
  }
  items.sort(
    (a, b) =>
      RESOURCE_TYPES.indexOf(a.type as ResourceType) - RESOURCE_TYPES.indexOf(b.type as ResourceType) ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const count = (s: ItemState) => items.filter((i) => i.state === s).length;
  const summary = {
    same: count('same'),
    changed: count('changed'),
    onlyInDatabase: count('onlyInDatabase'),
    onlyInFiles: count('onlyInFiles'),
  };
  return { inSync: summary.changed + summary.onlyInDatabase + summary.onlyInFiles === 0, summary, items };
}

/** Resource types with their counts in the database and in the files. */
export async function configResources(core: ConfigSyncCore, tenantId: string) {
  const all = core.types();
  const db = await core.readDatabase(tenantId, all);
  const { files } = core.sources.readFiles(tenantId, all);
  return RESOURCE_TYPES.map((type) => ({
    type,
    label: core.adapters[type].label,
    available: all.includes(type),
    applied: core.adapters[type].readOnlyReason === null,
    count: db.filter((d) => d.type === type).length,
    files: files.filter((f) => f.type === type).length,
  }));
}
