/**
 * /api/workflows (read: content:read; changes: system:settings, per tenant) and PUT
 * /api/collections/:collection/:entryId/stage (content:write, plus the target stage's roles).
 */
import { z } from 'zod';
import { defineRoute, recordRequestAudit, type RouteContext, type RouteDefinition } from '../../kernel/sdk.js';
import type { WorkflowRecord } from './workflow-store.js';
import type { WorkflowsService } from './workflows-service.js';

const tags = ['workflows'];
const name = z.string().trim().min(1).max(64);
const stage = z.strictObject({
  name,
  roles: z
    .array(name)
    .min(1)
    .max(50)
    .optional()
    .describe('The roles allowed to move entries into this stage (absent: anyone with content:write; administrators always)'),
});
const fields = {
  name: z.string().trim().min(1).max(191),
  collections: z
    .array(z.string().min(1).max(64))
    .max(100)
    .transform((c) => [...new Set(c)])
    .describe('Collections following this workflow; a collection follows at most one (another: 409 CONFLICT)'),
  stages: z.array(stage).min(1).max(20).describe('The stages in order; a new entry starts in the first'),
  publishStage: name.describe(
    'Entries are published from this stage only (else 409 WORKFLOW_STAGE_REQUIRED); absent: publishing is not tied to a stage',
  ),
};
const workflowView = z
  .object({
    _id: z.string(),
    name: z.string(),
    collections: z.array(z.string()),
    stages: z.array(z.object({ name: z.string(), roles: z.array(z.string()).optional() })),
    publishStage: z.string().optional(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Workflow' });
const idParam = z.object({ id: z.string().min(1).max(36) });

const viewOf = ({ tenantId: _tenant, ...view }: WorkflowRecord) => view;

const auditedWorkflow = (w: WorkflowRecord) => ({
  name: w.name,
  collections: w.collections,
  stages: w.stages,
  publishStage: w.publishStage ?? null,
});

/** Workflow changes and stage moves are recorded in the audit trail (workflow.<change>, entry.stage-changed). */
function audited(ctx: RouteContext['ctx'], change: 'created' | 'changed' | 'deleted', w: WorkflowRecord, details: Record<string, unknown>) {
  return recordRequestAudit(ctx, {
    domain: 'workflows',
    operation: `workflow-${change}`,
    action: `workflow.${change}`,
    outcome: 'success',
    level: change === 'deleted' ? 'medium' : 'low',
    message: `Workflow '${w.name}' ${change}`,
    target: { type: 'workflow', id: w._id },
    details,
  });
}

function stageRoute(service: () => WorkflowsService): RouteDefinition {
  return defineRoute({
    method: 'PUT',
    path: '/api/collections/:collection/:entryId/stage',
    permission: 'content:write',
    tags: ['entries'],
    summary: "Moves an entry to a review stage of its collection's workflow",
    description:
      "403 FORBIDDEN when the stage names roles and the caller's role is not one of them (administrators may); 400 VALIDATION_ERROR for a stage the workflow does not have; 404 for an unknown entry; 409 CONFLICT when the collection is in no workflow. Moving to the current stage changes nothing. A move is audited, published as on:stage_change and mailed to the users who may move the entry into the next stage.",
    request: {
      params: z.object({ collection: z.string().min(1).max(64), entryId: z.string().uuid() }),
      body: z.strictObject({ stage: name }),
    },
    response: z.object({ _id: z.string(), _stage: z.string() }).catchall(z.unknown()).meta({ id: 'StagedEntry' }),
    async handler({ ctx, identity, params, body }) {
      const { entry, previous } = await service().move(identity, params.collection, params.entryId, body.stage);
      if (previous !== body.stage)
        await recordRequestAudit(ctx, {
          domain: 'workflows',
          operation: 'stage-changed',
          action: 'entry.stage-changed',
          outcome: 'success',
          level: 'low',
          message: `Entry of ${params.collection} moved from the stage '${previous}' to '${body.stage}'`,
          target: { type: 'entry', id: params.entryId },
          details: { collection: params.collection, from: previous, to: body.stage },
        });
      return entry;
    },
  });
}

export function routes(service: () => WorkflowsService): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/workflows',
      permission: 'content:read',
      tags,
      request: {},
      summary: "The tenant's workflows (review stages), by name",
      response: z.array(workflowView),
      async handler({ identity }) {
        return (await service().list(identity.tenantId)).map(viewOf);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/workflows',
      permission: 'system:settings',
      tags,
      status: 201,
      request: { body: z.strictObject({ ...fields, publishStage: fields.publishStage.optional() }) },
      summary: 'Creates a workflow: its collections, stages (who may move entries into each) and publish stage',
      description:
        '400 VALIDATION_ERROR for a stage named twice, a publish stage that is not one of the stages, an unknown collection or role; 409 CONFLICT for a collection already in another workflow of the tenant.',
      response: workflowView,
      async handler({ ctx, identity, body }) {
        const made = await service().create(identity.tenantId, body);
        await audited(ctx, 'created', made, auditedWorkflow(made));
        return viewOf(made);
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/api/workflows/:id',
      permission: 'system:settings',
      tags,
      request: {
        params: idParam,
        body: z
          .strictObject({
            name: fields.name.optional(),
            collections: fields.collections.optional(),
            stages: fields.stages.optional(),
            publishStage: fields.publishStage.nullable().optional().describe('null: publishing is no longer tied to a stage'),
          })
          .refine((b) => Object.keys(b).length > 0, 'at least one field'),
      },
      summary: 'Changes a workflow (the fields sent); checked as a creation is; entries of collections it no longer holds lose their stage',
      response: workflowView,
      async handler({ ctx, identity, params, body }) {
        const before = await service().list(identity.tenantId);
        const after = await service().update(identity.tenantId, params.id, body);
        const was = before.find((w) => w._id === params.id);
        await audited(ctx, 'changed', after, { before: was ? auditedWorkflow(was) : null, after: auditedWorkflow(after) });
        return viewOf(after);
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/workflows/:id',
      permission: 'system:settings',
      tags,
      request: { params: idParam },
      summary: "Deletes a workflow; its collections' entries lose their stages (publishing is no longer tied to one)",
      response: z.object({ deleted: z.literal(true) }),
      async handler({ ctx, identity, params }) {
        const gone = await service().remove(identity.tenantId, params.id);
        await audited(ctx, 'deleted', gone, auditedWorkflow(gone));
        return { deleted: true as const };
      },
    }),
    stageRoute(service),
  ];
}
