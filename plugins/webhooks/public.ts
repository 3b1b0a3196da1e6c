import { defineEvent } from '../../kernel/sdk.js';
import { USER_EVENTS } from '../auth/public.js';
import { ENTRY_EVENTS } from '../content/public.js';
import { MEDIA_UPLOADED } from '../media/public.js';

/**
 * The events a webhook subscribes to (API decisions, "Webhooks"): the spec's planned names. An event is
 * delivered when a plugin publishes it on the event bus with a `tenantId` in its payload; `ping` is sent
 * by POST /api/webhooks/:id/test only.
 */
/** The names other plugins define are their constants (an event name is spelled once); the rest have no publisher yet. */
export const WEBHOOK_EVENTS = [
  ENTRY_EVENTS.create,
  ENTRY_EVENTS.update,
  ENTRY_EVENTS.delete,
  'on:publish',
  ENTRY_EVENTS.statusChange,
  'on:stage_change',
  MEDIA_UPLOADED,
  USER_EVENTS.create,
  'on:collection_create',
  'on:collection_update',
  'on:collection_delete',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** A webhook of a tenant was created, changed or deleted (any instance): the copies of its webhooks are read again. */
export const WEBHOOKS_CHANGED = defineEvent<{ tenantId: string }>('webhooks:changed');

/** A webhook as the API answers it (the secret only in the answer of its creation). */
export interface WebhookView {
  _id: string;
  name: string;
  url: string;
  events: WebhookEvent[];
  collections: string[] | null;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

/** One delivery as its log shows it. */
export interface DeliveryView {
  _id: string;
  event: string;
  status: 'pending' | 'succeeded' | 'retrying' | 'failed';
  attempts: number;
  responseStatus: number | null;
  durationMs: number | null;
  createdAt: string;
  nextAttemptAt: string | null;
}
