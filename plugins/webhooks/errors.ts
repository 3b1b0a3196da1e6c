import { defineError } from '../../kernel/sdk.js';

export class WebhookNotFoundError extends defineError(
  'WEBHOOK_NOT_FOUND',
  404,
  'No webhook with this id in your tenant (GET /api/webhooks lists them).',
  (id: string) => `No webhook '${id.slice(0, 100)}'`,
) {}

export class WebhookDeliveryNotFoundError extends defineError(
  'WEBHOOK_DELIVERY_NOT_FOUND',
  404,
  'No delivery with this id for this webhook (GET /api/webhooks/:id/deliveries lists them).',
  (id: string) => `No delivery '${id.slice(0, 100)}' of this webhook`,
) {}

export class WebhookUrlForbiddenError extends defineError(
  'WEBHOOK_URL_FORBIDDEN',
  400,
  "A webhook's URL is or resolves to a loopback, link-local, private or unique-local address (checked when the webhook is created or changed and again at each send); allowed only when the operator sets CMS_OUTBOUND_ALLOW_PRIVATE=true.",
  (host: string) => ({
    message: `The webhook URL's host ${host.slice(0, 300)} is or resolves to an internal address (loopback, link-local, private or unique-local); webhooks are not sent there unless the operator sets CMS_OUTBOUND_ALLOW_PRIVATE=true`,
  }),
) {}
