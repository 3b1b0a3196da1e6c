import { defineError } from '../../kernel/sdk.js';

export class WorkflowStageRequiredError extends defineError(
  'WORKFLOW_STAGE_REQUIRED',
  409,
  "The entry's collection has review stages and the entry is not in the workflow's publish stage: move it there first (PUT /api/collections/:name/:id/stage); administrators included.",
  (collection: string, stage: string, publishStage: string) => ({
    message: `Entries of ${collection} are published from the stage '${publishStage}'; this one is in '${stage}'`,
    extra: { stage, publishStage },
  }),
) {}
