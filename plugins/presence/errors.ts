import { defineError } from '../../kernel/sdk.js';

export class PresenceNotPresentError extends defineError(
  'PRESENCE_NOT_PRESENT',
  409,
  'This tab has not opened the entry (or its heartbeat expired): send PUT /api/presence/:collection/:id first.',
  () => 'This tab does not have the entry open',
) {}
