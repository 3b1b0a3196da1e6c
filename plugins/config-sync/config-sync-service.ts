/**
 * Configuration promotion: the sync files under `<dataPath>/config/sync/` (tenant `default`; another
 * tenant under `<dataPath>/config/sync/tenants/<tenantId>/`), one file per resource at
 * `<type>/<encodeURIComponent(name)>.json` holding `{uuid, type, name, checksum, data}`, where checksum is
 * the SHA-256 (hex) of the canonical JSON (safe-stable-stringify: keys sorted, no spaces) of `data`, and
 * `externalId` the resource's own id in the exporting database. A bundle (GET/POST /api/config/bundle)
 * carries the same entries in one JSON document. Identities across environments live in
 * cms_config_sync_links (see migrations.ts).
 * The service exports, diffs (status), drafts plans, applies one operation and verifies; the data-ops
 * engine runs the lifecycle around it (see domain.ts).
 * The service is a facade over its parts, cut along the lifecycle: sources (sync-sources.ts: the folder,
 * an uploaded bundle), links (identity-links.ts: identity links, matching, mappings), the domain's plan
 * (config-plan.ts) and apply/verify (config-apply.ts), and the export side (config-export.ts).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Sequelize, Transaction } from 'sequelize';
import type { DataOperation, PlanDraft, SafetyMode, StoredPlan, Undo, VerifyResult } from '../data-ops/public.js';
import { applyConfigOperation, verifyConfigPlan } from './config-apply.js';
import { configBundle, configResources, configStatus, exportFiles } from './config-export.js';
import { planConfig } from './config-plan.js';
import { checkMappings, IdentityLinks } from './identity-links.js';
import { RESOURCE_TYPES, type DbResource, type ResourceAdapter, type ResourceType } from './resources.js';
import { SyncSources } from './sync-sources.js';
import { canonical, type Bundle, type ConfigInput, type ConfigSyncCore, type FileProblem, type FileSource } from './sync-types.js';

export {
  BUNDLE_FORMAT,
  BUNDLE_MAX_BYTES,
  BUNDLE_TTL_MS,
  BundleError,
  canonical,
  checksumOf,
  derivedSyncId,
  MappingError,
  UploadNotFound,
  type Bundle,
  type BundleFile,
  type ConfigInput,
  type ConfigMappings,
  type ConfigPayload,
  type FileProblem,
  type FileSource,
  type IdentityLink,
  type ItemState,
  type SyncFile,
} from './sync-types.js';

export class ConfigSyncService implements ConfigSyncCore {
  readonly sources: SyncSources;
  readonly identity: IdentityLinks;

  constructor(
    private readonly dataPath: string,
    readonly adapters: Record<ResourceType, ResourceAdapter>,
    readonly sequelize: () => Sequelize,
  ) {
    this.sources = new SyncSources(adapters, sequelize, (tenantId) => this.folder(tenantId));
    this.identity = new IdentityLinks(sequelize);
  }

  /** The sync folder of a tenant. */
  folder(tenantId: string): string {
    const base = join(this.dataPath, 'config', 'sync');
    if (!/^[a-z0-9][a-z0-9_-]{0,63}$/i.test(tenantId)) throw new Error(`Unexpected tenant id '${tenantId}'`);
    return tenantId === 'default' ? base : join(base, 'tenants', tenantId);
  }

  /** The resource types this instance can sync (settings and the dashboard layout need the setup plugin). */
  types(): ResourceType[] {
    return RESOURCE_TYPES.filter((t) => this.adapters[t].available());
  }

  adapter(type: ResourceType): ResourceAdapter {
    return this.adapters[type];
  }

  async readDatabase(tenantId: string, types: ResourceType[]): Promise<DbResource[]> {
    const out: DbResource[] = [];
    for (const type of types) out.push(...(await this.adapters[type].read(tenantId)));
    return out;
  }

  // ---- sources ----

  /** Reads the sync files of the given types; unreadable or tampered files are problems, never thrown. */
  readFiles(tenantId: string, types: ResourceType[]): FileSource {
    return this.sources.readFiles(tenantId, types);
  }

  /** Stores an uploaded bundle (valid entries and problems) for BUNDLE_TTL_MS; expired uploads are removed. */
  storeUpload(tenantId: string, userId: string | null, value: unknown, size: number) {
    return this.sources.storeUpload(tenantId, userId, value, size);
  }

  /** The files of an uploaded bundle, like readFiles (throws UploadNotFound for an unknown, expired or foreign upload). */
  readUpload(tenantId: string, uploadId: string, types: ResourceType[]): Promise<FileSource> {
    return this.sources.readUpload(tenantId, uploadId, types);
  }

  /** Checks a bundle's shape and entries (BundleError when it is not a bundle at all). */
  checkBundle(value: unknown): { bundle: Bundle; problems: FileProblem[] } {
    return this.sources.checkBundle(value);
  }

  // ---- links ----

  /** Throws MappingError for a mapping naming no file or no resource, or two mappings on one resource. */
  async checkMappings(tenantId: string, input: ConfigInput): Promise<void> {
    if (!Object.keys(input.mappings ?? {}).length) return;
    const { files } = await this.sources.source(tenantId, input);
    checkMappings(files, await this.readDatabase(tenantId, input.types), input.mappings!);
  }

  // ---- export ----

  export(tenantId: string, types = this.types()): Promise<{ written: number; path: string; removed: number }> {
    return exportFiles(this, tenantId, types);
  }

  bundle(tenantId: string, types = this.types()): Promise<Bundle> {
    return configBundle(this, tenantId, types);
  }

  status(tenantId: string, types = this.types(), uploadId?: string) {
    return configStatus(this, tenantId, types, uploadId);
  }

  resources(tenantId: string) {
    return configResources(this, tenantId);
  }

  // ---- the domain: plan, apply, verify ----

  /** The hash of the database side (resources and their identity links) of the resources this input touches. */
  async snapshot(tenantId: string, input: ConfigInput): Promise<string> {
    const db = await this.readDatabase(tenantId, input.types);
    const links = await this.identity.links(tenantId, input.types);
    return createHash('sha256')
      .update(canonical(db.map((d) => ({ type: d.type, name: d.name, uuid: d.uuid, data: d.data }))))
      .update(canonical(links))
      .digest('hex');
  }

  plan(tenantId: string, input: ConfigInput, mode: SafetyMode, knownPermissions: Set<string>): Promise<Omit<PlanDraft, 'targetHash'>> {
    return planConfig(this, tenantId, input, mode, knownPermissions);
  }

  apply(tenantId: string, op: DataOperation, t?: Transaction): Promise<Undo | void> {
    return applyConfigOperation(this, tenantId, op, t);
  }

  verify(tenantId: string, plan: Pick<StoredPlan, 'operationsFull'>): Promise<VerifyResult> {
    return verifyConfigPlan(this, tenantId, plan);
  }
}
