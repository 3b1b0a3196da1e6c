import { defineEvent } from '../../kernel/sdk.js';
import { USER_EVENTS } from '../auth/public.js';
import { COLLECTION_EVENTS, ENTRY_EVENTS } from '../content/public.js';
import { MEDIA_UPLOADED } from '../media/public.js';
import { STAGE_CHANGED } from '../workflows/public.js';

/**
 * The events a webhook subscribes to (API decisions, "Webhooks"): the spec's planned names. An event is
 * delivered when a plugin publishes it on the event bus with a `tenantId` in its payload; `ping` is sent
 * by POST /api/webhooks/:id/test only.
 */
/** The names other plugins define are their constants (an event name is spelled once). */
export const WEBHOOK_EVENTS = [
  ENTRY_EVENTS.create,
  ENTRY_EVENTS.update,
  ENTRY_EVENTS.delete,
  ENTRY_EVENTS.publish,
  ENTRY_EVENTS.statusChange,
  STAGE_CHANGED,
  MEDIA_UPLOADED,
  USER_EVENTS.create,
  COLLECTION_EVENTS.create,
  COLLECTION_EVENTS.update,
  COLLECTION_EVENTS.delete,
] as const;

/**
 * Events about the installation rather than a tenant (collections are shared by every tenant): their
 * payload has no `tenantId`, and each is delivered to every tenant's webhooks that subscribe to it.
 */
export const INSTALLATION_EVENTS: readonly string[] = [COLLECTION_EVENTS.create, COLLECTION_EVENTS.update, COLLECTION_EVENTS.delete];
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
