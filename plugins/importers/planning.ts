import { createHash, randomUUID } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import { ForbiddenError, ValidationError, hasPermission, type Identity } from '../../kernel/sdk.js';
import type { ImportParseSummary } from './format-contract.js';
import type { DataOperation, PlanDraft } from '../data-ops/public.js';
import { ImportFormatMismatchError, ImportUploadNotFoundError } from './errors.js';
import { isCollectionName } from './field-names.js';
import {
  engineOf,
  formatLabel,
  identitySnapshot,
  IMPORTER_DOMAIN,
  sourceTagOf,
  type ImporterDeps,
  type ImportInput,
  type RunPayload,
  type StoredPlan,
} from './import-context.js';
import { buildPlan, type EntityMapping, type ImportPlan, type SafetyMode, type StatusPolicy } from './planner.js';
import type { ImportUploads } from './uploads.js';
import { earlierLinks } from './earlier-links.js';
import { checkLocaleMappings, planLocales, type InstallationLocales, type LocaleMapping } from './plan-locales.js';

/** The body of a preview (POST /api/importers/preview). */
export interface PreviewBody {
  format: string;
  uploadId?: string;
  mappings?: Record<string, EntityMapping>;
  locales?: Record<string, LocaleMapping>;
  scaffold?: boolean;
  mode?: SafetyMode;
  statuses?: StatusPolicy;
}

/**
 * Planning: the importer domain's validate, snapshot and plan (for the data-operation engine), and the
 * preview that plans through the engine and records the importer's plan for the run.
 */
export class ImportPlanning {
  constructor(
    private readonly deps: ImporterDeps,
    private readonly uploads: ImportUploads,
  ) {}

  /** The domain's validate: the upload (the caller's, valid, files present), its format, scaffold permission, mapping names. */
  async validateInput(
    identity: Identity,
    body: {
      format: string;
      uploadId?: string;
      mappings?: Record<string, EntityMapping>;
      locales?: Record<string, LocaleMapping>;
      scaffold?: boolean;
      statuses?: StatusPolicy;
    },
  ): Promise<ImportInput> {
    const upload = await this.uploads.uploadFor(identity, body.uploadId);
    if (upload.format !== body.format) {
      throw new ImportFormatMismatchError(
        `Upload '${upload.id}' was validated as '${upload.format}', not '${body.format}'; validate it again with the format hint '${body.format}'`,
      );
    }
    const scaffold = body.scaffold ?? false;
    if (scaffold && !hasPermission(identity, 'collections:manage'))
      throw new ForbiddenError("Scaffold mode creates collections: it needs the permission 'collections:manage'");
    for (const [entity, m] of Object.entries(body.mappings ?? {})) {
      const name = typeof m === 'string' ? m : m && typeof m === 'object' ? m.collection : undefined;
      if (name !== undefined && !isCollectionName(name)) {
        const message = 'lower-case letters, digits and _, starting with a letter, at most 48 (not presets, schema or batch)';
        throw new ValidationError(`'${name}' is not a valid collection name: ${message}`, [{ path: `body.mappings.${entity}`, message }]);
      }
    }
    if (body.locales && Object.keys(body.locales).length)
      checkLocaleMappings(JSON.parse(upload.summary) as ImportParseSummary, body.locales, this.installedLocales(identity));
    return {
      format: body.format,
      uploadId: upload.id,
      ...(body.mappings ? { mappings: body.mappings } : {}),
      ...(body.locales ? { locales: body.locales } : {}),
      scaffold,
      ...(body.statuses ? { statuses: body.statuses } : {}),
      jobId: randomUUID(),
    };
  }

  /** The installation's locales and whether this caller may create one (plan-locales.ts). */
  private installedLocales(identity: Identity): InstallationLocales {
    const list = this.deps.localesList();
    return {
      codes: list.map((l) => l.code),
      defaultCode: list.find((l) => l.isDefault)?.code ?? 'en',
      mayCreate: hasPermission(identity, 'system:settings') && identity.tenantId === 'default',
    };
  }

  /** The importer's plan of an input against the current collections and ledger (no mutation). */
  private async importPlanOf(input: ImportInput, mode: SafetyMode, identity: Identity) {
    const upload = await this.deps.store.uploads.findOne({ where: { id: input.uploadId, tenant_id: identity.tenantId } });
    if (!upload) throw new ImportUploadNotFoundError(input.uploadId);
    const summary = JSON.parse(upload.summary) as ImportParseSummary;
    const content = this.deps.contentClient()(identity);
    const collections = await content.collections.list();
    const linked = await this.deps.store.countLinks(identity.tenantId, input.format);
    const earlier = summary.earlierRefs?.length
      ? await earlierLinks(this.deps.store, content, identity.tenantId, input.format, summary.earlierRefs, collections)
      : [];
    const label = formatLabel(this.deps, input.format);
    const plan = buildPlan({
      sourceTag: sourceTagOf(label),
      sourceLabel: label,
      ...(input.statuses ? { statuses: input.statuses } : {}),
      planId: '',
      uploadId: upload.id,
      format: input.format,
      filename: upload.filename,
      summary,
      collections,
      scaffold: input.scaffold,
      mode,
      mappings: input.mappings,
      linked,
      earlierLinks: earlier,
    });
    if (summary.locales && Object.keys(summary.locales).length) {
      const installed = this.installedLocales(identity);
      plan.locales = planLocales(summary, input.locales, installed);
      plan.defaultLocale = installed.defaultCode;
    }
    return { plan, collections, linked };
  }

  /**
   * The domain's snapshot: a hash of what the plan depends on: the target collections' fields (or their
   * absence) and the ledger's record counts of this format in them. A run that has begun answers its
   * plan's hash (its own writes changed the target; a resumed background run must not be refused as stale).
   */
  async snapshotOf(input: ImportInput, identity: Identity): Promise<string> {
    const job = await this.deps.store.jobs.findByPk(input.jobId);
    if (job && job.begun_at !== null && job.begun_at !== undefined) {
      const row = await this.deps.store.plans.findByPk(job.plan_id);
      const stored = row ? (JSON.parse(row.plan) as StoredPlan) : null;
      if (stored?.targetHash) return stored.targetHash;
    }
    const { plan, collections, linked } = await this.importPlanOf(input, 'add', identity);
    const targets: Record<string, string[] | null> = {};
    const links: Record<string, number> = {};
    for (const o of plan.operations) {
      if (!o.targetCollection) continue;
      const c = collections.find((x) => x.name === o.targetCollection);
      targets[o.targetCollection] = c ? c.fields.map((f) => `${f.name}:${f.type}`).sort() : null;
      links[`${o.sourceType}>${o.targetCollection}`] = linked[o.sourceType]?.[o.targetCollection] ?? 0;
    }
    const locales = plan.locales?.map((l) => `${l.source}>${l.action}:${l.target ?? '-'}`);
    return createHash('sha256')
      .update(stringify({ format: input.format, targets, links, ...(locales ? { locales } : {}) }) ?? '')
      .digest('hex');
  }

  /**
   * The domain's plan: first the run itself (`create import <format>`, count 0, carrying the importer's
   * plan), then each collection scaffolded (`create collection`, count 0), then per source entity its
   * records (`create entry`, or `skip entry` when unmapped) with today's counts. Unmapped entities are
   * warnings, not blocked reasons (the run imports the rest, as before).
   */
  async draftFor(input: ImportInput, mode: SafetyMode, identity: Identity): Promise<PlanDraft> {
    const { plan } = await this.importPlanOf(input, mode, identity);
    const { planId: _planId, ...carried } = plan;
    const payload: RunPayload = { plan: carried };
    const operations: DataOperation[] = [{ action: 'create', type: 'import', target: input.format, count: 0, payload }];
    for (const l of plan.locales ?? [])
      if (l.action === 'create') operations.push({ action: 'create', type: 'locale', target: l.target!, count: 0 });
    for (const c of plan.scaffoldCollections) operations.push({ action: 'create', type: 'collection', target: c.name, count: 0 });
    const warnings: PlanDraft['warnings'] = [];
    for (const o of plan.operations) {
      const action = o.action === 'scaffold' ? 'create' : o.action;
      operations.push({ action, type: 'entry', target: `${o.sourceType} -> ${o.targetCollection ?? '-'}`, count: o.count });
      if (o.action === 'skip' && o.note !== 'left out by mappings')
        warnings.push({ message: `${o.sourceType}: ${o.count} record(s) not imported: ${o.note ?? 'not mapped'}`, item: o.sourceType });
    }
    return { operations, warnings, blockedReasons: plan.blockedReasons, targetHash: '' };
  }

  async preview(identity: Identity, body: PreviewBody) {
    const engine = engineOf(this.deps);
    const { mode, ...request } = body;
    const view = await engine.plan(IMPORTER_DOMAIN, request, mode ?? 'add', identity);
    const stored = await engine.getPlan(view.planId, identity);
    const input = stored.input as ImportInput;
    const carried = (stored.operationsFull.find((o) => o.type === 'import')?.payload as RunPayload).plan;
    const plan: ImportPlan = { ...carried, planId: view.planId };
    const upload = await this.deps.store.uploads.findOne({ where: { id: plan.uploadId, tenant_id: identity.tenantId } });
    const record: StoredPlan = {
      ...plan,
      identity: identitySnapshot(identity),
      targetHash: stored.targetHash,
      jobId: input.jobId,
      ...(upload ? { filename: upload.filename } : {}),
    };
    await this.deps.store.plans.create({
      id: plan.planId,
      tenant_id: identity.tenantId,
      upload_id: plan.uploadId,
      plan: JSON.stringify(record),
      job_id: null,
      created_at: Date.now(),
    });
    return {
      ...this.planView(plan),
      planHash: view.planHash,
      risk: view.risk,
      requiresConfirmation: view.requiresConfirmation,
      summary: view.summary,
      warnings: view.warnings,
      blockedReasons: view.blockedReasons,
      expiresAt: view.expiresAt,
    };
  }

  planView(plan: ImportPlan) {
    return {
      planId: plan.planId,
      uploadId: plan.uploadId,
      format: plan.format,
      scaffold: plan.scaffold,
      mode: plan.mode,
      fieldMappings: plan.fieldMappings,
      operations: plan.operations,
      estimatedDurationMs: plan.estimatedDurationMs,
      collections: plan.scaffoldCollections.map((c) => ({ name: c.name, fields: c.fields, widgets: c.widgets })),
      shortcodes: plan.shortcodes ?? [],
      ...(plan.locales ? { locales: plan.locales, defaultLocale: plan.defaultLocale ?? null } : {}),
    };
  }
}
