/**
 * The `mcp-entries` data-operation domain: an agent's bulk change of entries (run_data_operation plans it,
 * confirm_data_operation applies the plan by id and hash: the engine's plan-confirm lifecycle, lock, audit and
 * completion event). Each operation writes as the agent's single writes do (drafts, recorded in its session), and
 * returns an undo that puts the entry back if a later operation fails. Only the MCP server makes such plans: the
 * plan's input names the session, checked against the key that plans and applies.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ForbiddenError, ValidationError, type Identity } from '../../kernel/sdk.js';
import type { DataDomainDefinition, DataOperation, DomainContext } from '../data-ops/public.js';
import type { AgentContext, AgentServices } from './agent.js';
import { createEntry, updateEntry } from './tools-entries.js';

export const BULK_DOMAIN = 'mcp-entries';
/** At most this many entries per plan. */
export const MAX_BULK_ITEMS = 200;

export const bulkInputSchema = z.object({
  collection: z.string().min(1).max(64),
  items: z
    .array(z.object({ id: z.string().uuid().optional(), data: z.record(z.string(), z.unknown()) }).strict())
    .min(1)
    .max(MAX_BULK_ITEMS),
  session: z
    .object({
      id: z.string().min(1).max(64),
      keyId: z.string().min(1).max(64),
      keyName: z.string().max(191),
      via: z.enum(['http', 'stdio']),
    })
    .strict(),
});
export type BulkInput = z.output<typeof bulkInputSchema>;
type Item = BulkInput['items'][number];

function agentOf(identity: Identity, input: BulkInput, services: AgentServices): AgentContext {
  if (identity.kind !== 'apiKey' || identity.meta?.apiKeyId !== input.session.keyId)
    throw new ForbiddenError('Plans of the mcp-entries domain are made and applied by the API key of their MCP session');
  return {
    identity,
    keyId: input.session.keyId,
    keyName: input.session.keyName,
    sessionId: input.session.id,
    via: input.session.via,
    services,
  };
}

export function bulkDomain(services: () => AgentServices): DataDomainDefinition<BulkInput> {
  return {
    id: BULK_DOMAIN,
    auditDomain: 'importer',
    modes: ['merge'],
    defaultMode: 'merge',
    inlineThreshold: Infinity,
    transactional: false,
    async validate(input: unknown, ctx: DomainContext) {
      const parsed = bulkInputSchema.safeParse(input);
      if (!parsed.success)
        throw new ValidationError(
          `Invalid bulk change: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
          parsed.error.issues.map((i) => ({ path: `input.${i.path.join('.')}`, message: i.message })),
        );
      agentOf(ctx.identity, parsed.data, services());
      return parsed.data;
    },
    async snapshot(input, ctx) {
      const ids = input.items.flatMap((i) => (i.id ? [i.id] : []));
      const client = services().contentClient(ctx.identity).entries(input.collection);
      const found = ids.length ? await client.existing(ids) : new Set<string>();
      return createHash('sha256')
        .update(JSON.stringify([...found].sort()))
        .digest('hex');
    },
    async plan(input, _mode, ctx) {
      const ids = input.items.flatMap((i) => (i.id ? [i.id] : []));
      const found = ids.length ? await services().contentClient(ctx.identity).entries(input.collection).existing(ids) : new Set<string>();
      const missing = ids.filter((id) => !found.has(id));
      const operations: DataOperation<Item>[] = input.items.map((item, i) => ({
        action: item.id ? 'update' : 'create',
        type: 'entry',
        target: item.id ? `${input.collection}/${item.id}` : `${input.collection}/new-${i + 1}`,
        payload: item,
      }));
      return {
        operations,
        warnings: [],
        blockedReasons: missing.map((id) => `No entry '${id}' in '${input.collection}' (or the key may not read it)`),
        targetHash: await this.snapshot(input, ctx),
      };
    },
    async apply(operation, ctx) {
      const input = ctx.plan.input as BulkInput;
      const agent = agentOf(ctx.identity, input, services());
      const item = operation.payload as Item;
      if (!item.id) {
        const created = await createEntry(agent, { collection: input.collection, data: item.data });
        return () => services().contentClient(ctx.identity).entries(input.collection).remove(String(created._id));
      }
      await updateEntry(agent, { collection: input.collection, id: item.id, data: item.data });
    },
    async verify() {
      return { ok: true, discrepancies: [] };
    },
  };
}
