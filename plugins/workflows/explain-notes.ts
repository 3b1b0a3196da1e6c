/**
 * What review stages add to GET /api/roles/:id/explain (auth's ExplainNotes): publishing an entry of a collection
 * whose workflow names a publish stage needs the entry to be in that stage, and whether the role may move entries
 * there (a stage's `roles`; administrators always may).
 */
import type { ExplainNotes } from '../auth/public.js';
import type { WorkflowRecord } from './workflow-store.js';

export function explainNotes(workflowOf: (tenantId: string, collection: string) => Promise<WorkflowRecord | undefined>): ExplainNotes {
  return {
    async notes(tenantId, { role, collection, action }) {
      if (action !== 'publish') return [];
      const workflow = await workflowOf(tenantId, collection);
      if (!workflow?.publishStage) return [];
      const stage = workflow.stages.find((s) => s.name === workflow.publishStage);
      const movers = stage?.roles;
      const mayMove = role === 'admin' || !movers || movers.includes(role);
      const who = movers ? `the roles ${movers.join(', ')} (and administrators)` : "anyone with 'content:write'";
      return [
        `Publishing also needs the entry to be in the review stage '${workflow.publishStage}' of the workflow '${workflow.name}' (409 WORKFLOW_STAGE_REQUIRED otherwise); ${who} may move entries into it, so this role ${mayMove ? 'may' : 'may not'}.`,
      ];
    },
  };
}
