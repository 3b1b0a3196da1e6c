import { defineEvent } from '../../kernel/sdk.js';

/** Someone opened, left or took over an entry (payload: tenant, collection, entry): UIs may refresh at once. */
export const PRESENCE_CHANGED = defineEvent<{ tenantId: string; collection: string; entryId: string }>('presence:changed');
