/**
 * The review stages' public surface: the event of a stage change (an entry event, deliverable by webhooks), the
 * event that makes every instance read a tenant's workflows again, and the answer shapes.
 */
import { defineEvent } from '../../kernel/sdk.js';
import type { ContentEvent } from '../content/public.js';

/** One stage: `roles` may move entries into it (absent: anyone with content:write; administrators always). */
export interface WorkflowStage {
  name: string;
  roles?: string[];
}

/** A workflow as the API answers it (`publishStage` absent: publishing is not tied to a stage). */
export interface WorkflowView {
  _id: string;
  name: string;
  collections: string[];
  stages: WorkflowStage[];
  publishStage?: string;
  createdAt: string;
  updatedAt: string;
}

/** The payload of on:stage_change: an entry event (`entry` answers the new `_stage`) with the stage it left. */
export interface StageChangeEvent extends ContentEvent {
  stage: string;
  previousStage: string;
}

/** An entry moved to another review stage (PUT /api/collections/:name/:id/stage). */
export const STAGE_CHANGED = defineEvent<StageChangeEvent>('on:stage_change');

/** A workflow of a tenant was created, changed or deleted (any instance): the copies of its workflows are read again. */
export const WORKFLOWS_CHANGED = defineEvent<{ tenantId: string }>('workflows:changed');
