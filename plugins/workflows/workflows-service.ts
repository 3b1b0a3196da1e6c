import { literal, Op, UniqueConstraintError, type WhereOptions } from 'sequelize';
import {
  ConflictError,
  ForbiddenError,
  hasScopedPermission,
  isAdmin,
  ValidationError,
  type AuditLog,
  type EventBus,
  type FollowedEach,
  type Identity,
  type Logger,
} from '../../kernel/sdk.js';
import type { CollectionsService, Entry, EntriesService, PublishCheck } from '../content/public.js';
import { WorkflowStageRequiredError } from './errors.js';
import { STAGE_CHANGED, WORKFLOWS_CHANGED, type StageChangeEvent } from './public.js';
import type { WorkflowInput, WorkflowRecord, WorkflowStore } from './workflow-store.js';
import type { StageMail } from './stage-mail.js';
import { followRoles, type RoleRename } from './stage-roles.js';

/** Role names every tenant made through the tenants service has (auth's built-in roles). */
const BUILT_IN_ROLES = ['admin', 'editor', 'viewer'];

export interface WorkflowsDeps {
  store: WorkflowStore;
  /** A tenant's workflows, held per instance and read again on WORKFLOWS_CHANGED. */
  copies: FollowedEach<string, WorkflowRecord[]>;
  collections: () => CollectionsService;
  entries: () => EntriesService;
  events: EventBus;
  /** The tenant's role names (auth); undefined without the auth plugin (role names are then not checked). */
  roleNames: (tenantId: string) => Promise<string[] | undefined>;
  mail: StageMail;
  logger: Logger;
  /** The audit trail (the kernel's): changes made for a role renamed or deleted have no request to record them. */
  audit?: Pick<AuditLog, 'record'>;
}

/** A workflow's problems as validation issues (stage names, publish stage, collections). */
function shapeIssues(input: WorkflowInput, known: (name: string) => boolean): Array<{ path: string; message: string }> {
  const issues: Array<{ path: string; message: string }> = [];
  const seen = new Set<string>();
  input.stages.forEach((s, i) => {
    if (seen.has(s.name)) issues.push({ path: `body.stages.${i}.name`, message: `the stage '${s.name}' is named twice` });
    seen.add(s.name);
  });
  if (input.publishStage !== undefined && !seen.has(input.publishStage))
    issues.push({ path: 'body.publishStage', message: `'${input.publishStage}' is not one of the stages` });
  input.collections.forEach((c, i) => {
    if (!known(c)) issues.push({ path: `body.collections.${i}`, message: `no collection '${c}'` });
  });
  return issues;
}

/**
 * Review stages (docs/features/review-stages.md): a tenant's workflows, the stage of each entry of their collections
 * (absent: the first stage), the publish guard and the `_stage` of entry answers (content's entry hooks).
 */
export class WorkflowsService {
  constructor(private readonly deps: WorkflowsDeps) {}

  list(tenantId: string): Promise<WorkflowRecord[]> {
    return this.deps.copies.get(tenantId);
  }

  /** The workflow a collection of the tenant follows, or undefined. */
  async of(tenantId: string, collection: string): Promise<WorkflowRecord | undefined> {
    return (await this.list(tenantId)).find((w) => w.collections.includes(collection));
  }

  /** 400 VALIDATION_ERROR naming each problem: a stage named twice, an unknown publish stage, collection or role. */
  private async check(tenantId: string, input: WorkflowInput): Promise<void> {
    const collections = this.deps.collections();
    const issues = shapeIssues(input, (name) => collections.find(name) !== undefined);
    const roles = await this.deps.roleNames(tenantId);
    if (roles) {
      const known = new Set([...roles, ...BUILT_IN_ROLES]);
      input.stages.forEach((s, i) =>
        (s.roles ?? []).forEach((r, j) => {
          if (!known.has(r)) issues.push({ path: `body.stages.${i}.roles.${j}`, message: `no role '${r}' in this tenant` });
        }),
      );
    }
    if (issues.length) throw new ValidationError(`Invalid workflow: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
  }

  /** After a change: every instance reads the tenant's workflows again, and the lists of the collections concerned. */
  private async changed(tenantId: string, collections: string[]): Promise<void> {
    this.deps.copies.forget(tenantId);
    await this.deps.events.publish(WORKFLOWS_CHANGED, { tenantId });
    for (const c of new Set(collections))
      await this.deps
        .entries()
        .invalidateLists(tenantId, c)
        .catch((err: unknown) => this.deps.logger.warn({ err, collection: c }, 'workflow changed, but the lists were not invalidated'));
  }

  async create(tenantId: string, input: WorkflowInput): Promise<WorkflowRecord> {
    await this.check(tenantId, input);
    const made = await this.deps.store.create(tenantId, input);
    await this.changed(tenantId, made.collections);
    return made;
  }

  /** A partial change: the fields given replace the stored ones (`publishStage: null` removes it), then the whole is checked. */
  async update(tenantId: string, id: string, patch: Partial<Omit<WorkflowInput, 'publishStage'>> & { publishStage?: string | null }) {
    const before = await this.deps.store.get(tenantId, id);
    const { publishStage, ...rest } = patch;
    const next: WorkflowInput = { name: before.name, collections: before.collections, stages: before.stages, ...rest };
    const stage = publishStage === undefined ? before.publishStage : (publishStage ?? undefined);
    if (stage !== undefined) next.publishStage = stage;
    await this.check(tenantId, next);
    const after = await this.deps.store.update(tenantId, id, next, before);
    await this.changed(tenantId, [...before.collections, ...after.collections]);
    return after;
  }

  async remove(tenantId: string, id: string): Promise<WorkflowRecord> {
    const gone = await this.deps.store.get(tenantId, id);
    await this.deps.store.remove(tenantId, gone);
    await this.changed(tenantId, gone.collections);
    return gone;
  }

  /**
   * After a role of the tenant was renamed or deleted (auth's ROLE_RENAMED, ROLE_CHANGED): the stages' roles follow
   * (stage-roles.ts: renamed, or dropped when the tenant no longer has them; a stage left with none keeps `admin`).
   * Each changed workflow is audited (workflow.changed, no user) and every instance reads it again.
   */
  async followRoles(tenantId: string, renames: RoleRename[]): Promise<void> {
    const roles = await this.deps.roleNames(tenantId);
    if (!roles) return;
    const known = new Set([...roles, ...BUILT_IN_ROLES]);
    let changed = false;
    for (const before of await this.deps.store.list(tenantId)) {
      const stages = followRoles(before.stages, (r) => known.has(r), renames);
      if (!stages) continue;
      const { name, collections, publishStage } = before;
      await this.deps.store.update(tenantId, before._id, { name, collections, stages, ...(publishStage ? { publishStage } : {}) }, before);
      changed = true;
      this.deps.audit?.record({
        domain: 'workflows',
        operation: 'workflow-changed',
        actor: { userId: null, tenantId },
        outcome: 'success',
        level: 'low',
        action: 'workflow.changed',
        message: `Workflow '${before.name}' changed: its stages follow a role renamed or deleted`,
        details: { before: { stages: before.stages }, after: { stages }, reason: 'role renamed or deleted' },
      });
    }
    // Roles are not in entry answers: no list is invalidated.
    if (changed) await this.changed(tenantId, []);
  }

  /** The current stage of each entry (the first stage when none is stored or the stored one is gone). */
  private async stagesOf(workflow: WorkflowRecord, tenantId: string, collection: string, ids: string[], check?: PublishCheck) {
    const stored = await this.deps.store.stages(tenantId, collection, ids, check?.transaction);
    const names = new Set(workflow.stages.map((s) => s.name));
    const first = workflow.stages[0]!.name;
    return (id: string) => {
      const s = stored.get(id);
      return s !== undefined && names.has(s) ? s : first;
    };
  }

  /** Content's publish guard: 409 WORKFLOW_STAGE_REQUIRED outside the publish stage (a new entry is in the first stage). */
  async guard(check: PublishCheck): Promise<void> {
    const workflow = await this.of(check.tenantId, check.collection);
    if (!workflow?.publishStage) return;
    const stage = check.entryId
      ? (await this.stagesOf(workflow, check.tenantId, check.collection, [check.entryId], check))(check.entryId)
      : workflow.stages[0]!.name;
    if (stage !== workflow.publishStage) throw new WorkflowStageRequiredError(check.collection, stage, workflow.publishStage);
  }

  /**
   * Content's answer decorator: `_stage` on entries of collections in a workflow (one query per answer), for callers
   * who may write the collection; readers (published entries only) are not shown it.
   */
  async decorate(collection: string, identity: Identity, entries: Entry[]): Promise<void> {
    if (!hasScopedPermission(identity, 'content:write', collection)) return;
    const { tenantId } = identity;
    const workflow = await this.of(tenantId, collection);
    if (!workflow) return;
    const stageOf = await this.stagesOf(
      workflow,
      tenantId,
      collection,
      entries.map((e) => e._id),
    );
    for (const e of entries) (e as Record<string, unknown>)._stage = stageOf(e._id);
  }

  /**
   * Content's stage filter (a list's `?stage=`): the entries with that stage stored, or for the first stage those
   * with none of the other stages stored (no row, or a stage the workflow no longer has, is the first stage). 400
   * VALIDATION_ERROR when the collection has no workflow or no such stage.
   */
  async stageWhere(collection: string, tenantId: string, stage: string): Promise<WhereOptions> {
    const workflow = await this.of(tenantId, collection);
    const issue = (message: string) => new ValidationError(`Invalid query.stage: ${message}`, [{ path: 'query.stage', message }]);
    if (!workflow) throw issue(`the collection '${collection}' is in no workflow`);
    if (!workflow.stages.some((s) => s.name === stage)) throw issue(`no stage '${stage}' in the workflow '${workflow.name}'`);
    const first = workflow.stages[0]!.name;
    const named = stage === first ? workflow.stages.slice(1).map((s) => s.name) : [stage];
    if (!named.length) return {};
    const sql = this.deps.store.stagedIds(tenantId, collection, named);
    return { id: { [stage === first ? Op.notIn : Op.in]: literal(`(${sql})`) } };
  }

  /**
   * Moves an entry to a stage: 409 CONFLICT when its collection has no workflow, 404 for an unknown entry (as the
   * caller reads it), 400 for an unknown stage, 403 when the stage names roles and the caller's is not one of them
   * (administrators may). The same stage again changes nothing. Then lists invalidated, on:stage_change published and
   * the users who may move it on mailed (after the answer; a mail failure is logged).
   */
  async move(identity: Identity, collection: string, entryId: string, stage: string): Promise<{ entry: Entry; previous: string }> {
    const { tenantId } = identity;
    const workflow = await this.of(tenantId, collection);
    if (!workflow) throw new ConflictError(`The collection '${collection}' has no review stages (it is in no workflow)`);
    const entries = this.deps.entries();
    const entry = await entries.get(collection, entryId, identity);
    const target = workflow.stages.find((s) => s.name === stage);
    if (!target)
      throw new ValidationError(`No stage '${stage}' in the workflow '${workflow.name}'`, [
        { path: 'body.stage', message: 'unknown stage' },
      ]);
    if (target.roles && !isAdmin(identity) && !target.roles.includes(identity.role))
      throw new ForbiddenError(`Only ${target.roles.join(', ')} may move entries into the stage '${stage}'`);
    const previous =
      typeof entry._stage === 'string' ? entry._stage : (await this.stagesOf(workflow, tenantId, collection, [entryId]))(entryId);
    if (previous === stage) return { entry, previous };
    await this.write(tenantId, collection, entryId, stage, identity.userId);
    await entries
      .invalidateLists(tenantId, collection)
      .catch((err: unknown) => this.deps.logger.warn({ err }, 'stage changed, lists not invalidated'));
    const moved = { ...entry, _stage: stage } as Entry;
    const event: StageChangeEvent = { tenantId, collection, entry: moved, userId: identity.userId, stage, previousStage: previous };
    await this.deps.events
      .publish(STAGE_CHANGED, event)
      .catch((err: unknown) => this.deps.logger.warn({ err }, 'on:stage_change not published'));
    void this.deps.mail
      .announce(workflow, event)
      .catch((err: unknown) => this.deps.logger.warn({ err, collection }, 'stage change not mailed'));
    return { entry: moved, previous };
  }

  /** Two moves of one entry at once: the second insert meets the first's key and is tried once more. */
  private async write(tenantId: string, collection: string, entryId: string, stage: string, userId: string | null): Promise<void> {
    try {
      await this.deps.store.setStage(tenantId, collection, entryId, stage, userId);
    } catch (err) {
      if (!(err instanceof UniqueConstraintError)) throw err;
      await this.deps.store.setStage(tenantId, collection, entryId, stage, userId);
    }
  }

  /** Deleted entries take their stage with them. */
  forget(tenantId: string, collection: string, ids: string[]): Promise<void> {
    return this.deps.store.forget(tenantId, collection, ids);
  }
}
