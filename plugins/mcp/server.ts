/**
 * The MCP server of one agent call (HTTP) or one stdio connection: the official SDK's McpServer with the tools,
 * each bound to the agent's context. The SDK is imported on first use only (`loadSdk`), so an installation whose
 * agents never connect pays nothing for it at start or in memory.
 */
import { z } from 'zod';
import { KERNEL_VERSION, ValidationError } from '../../kernel/sdk.js';
import { audited, type AgentContext, type ToolAnswer } from './agent.js';
import { MAX_BULK_ITEMS } from './bulk-domain.js';
import { createEntry, describeModel, readEntry, searchEntries, updateEntry } from './tools-entries.js';
import { confirmDataOperation, runDataOperation, uploadMediaByUrl } from './tools-ops.js';

type McpServerClass = typeof import('@modelcontextprotocol/sdk/server/mcp.js').McpServer;
let sdk: Promise<{ McpServer: McpServerClass }> | null = null;

/** The SDK's server module, imported once on first use. */
export function loadSdk(): Promise<{ McpServer: McpServerClass }> {
  sdk ??= import('@modelcontextprotocol/sdk/server/mcp.js').then((m) => ({ McpServer: m.McpServer }));
  return sdk;
}

const collection = z.string().min(1).max(64).describe('A collection name (describe_model lists them)');
const entryId = z.string().uuid().describe("The entry's _id");
const data = z.record(z.string(), z.unknown()).describe('Field values by field name (status is set by publish, never by data)');
const publish = z.boolean().optional().describe('Publish the change (needs the publish permission; refused otherwise). Default: a draft');

interface ToolSpec {
  name: string;
  description: string;
  input: z.ZodRawShape;
  target(args: Record<string, unknown>): Record<string, unknown>;
  run(agent: AgentContext, args: any): Promise<ToolAnswer>;
}

/** A URL for the audit: without its query and fragment (a signed URL's token is a secret). */
function withoutQuery(raw: string): string {
  try {
    const u = new URL(raw);
    return `${u.protocol}//${u.host}${u.pathname}`.slice(0, 300);
  } catch {
    return raw.split(/[?#]/)[0]!.slice(0, 300);
  }
}

const named = (args: Record<string, unknown>) => ({
  ...(typeof args.collection === 'string' ? { collection: args.collection } : {}),
  ...(typeof args.id === 'string' ? { entryId: args.id } : {}),
});

export const TOOLS: ToolSpec[] = [
  {
    name: 'describe_model',
    description:
      'The content model: the collections this key may read, their fields, whether they keep working drafts, and what this key may do in each.',
    input: { collection: collection.optional() },
    target: named,
    run: describeModel,
  },
  {
    name: 'search_entries',
    description:
      'Lists entries of a collection: full-text search, a filter ({"field": value} or operators such as {"$gt": 3}), status, sort ("-createdAt"), page and limit (at most 100).',
    input: {
      collection,
      search: z.string().max(200).optional(),
      filter: z.record(z.string(), z.unknown()).optional(),
      status: z.enum(['draft', 'published', 'archived']).optional(),
      sort: z.string().max(200).optional(),
      page: z.number().int().min(1).max(100000).optional(),
      limit: z.number().int().min(1).max(100).optional(),
    },
    target: named,
    run: searchEntries,
  },
  {
    name: 'read_entry',
    description: 'Reads one entry; draft: true reads its working draft (collections with drafts).',
    input: { collection, id: entryId, draft: z.boolean().optional() },
    target: named,
    run: readEntry,
  },
  {
    name: 'create_entry',
    description: 'Creates an entry as a draft (status draft); publish: true publishes it when this key holds the publish permission.',
    input: { collection, data, publish },
    target: named,
    run: createEntry,
  },
  {
    name: 'update_entry',
    description:
      'Changes fields of an entry. A published entry of a collection with working drafts is changed in its draft; an unpublished entry in place; a published entry of a collection without drafts only with publish: true (live content).',
    input: { collection, id: entryId, data, publish },
    target: named,
    run: updateEntry,
  },
  {
    name: 'upload_media_by_url',
    description: 'Fetches a file from an http(s) URL (public addresses only, no redirects) into the media library (needs media:write).',
    input: { url: z.string().min(1).max(2048), filename: z.string().min(1).max(255).optional() },
    target: (args) => ({ url: withoutQuery(String(args.url)) }),
    run: uploadMediaByUrl,
  },
  {
    name: 'run_data_operation',
    description: `Plans a bulk change of up to ${MAX_BULK_ITEMS} entries of one collection (items with id update, without create; all as drafts). Changes nothing: answers the plan (planId, planHash, summary, operations) to confirm with confirm_data_operation.`,
    input: {
      collection,
      items: z
        .array(z.object({ id: entryId.optional(), data }))
        .min(1)
        .max(MAX_BULK_ITEMS),
    },
    target: (args) => ({ ...named(args), items: Array.isArray(args.items) ? args.items.length : 0 }),
    run: runDataOperation,
  },
  {
    name: 'confirm_data_operation',
    description:
      'Applies a plan of run_data_operation by its planId and planHash (a plan is kept 30 minutes); answers the outcome and summary.',
    input: { planId: z.string().min(1).max(64), planHash: z.string().min(1).max(128) },
    target: (args) => ({ planId: args.planId }),
    run: confirmDataOperation,
  },
];

/**
 * A server with every tool bound to the agent (a new one per HTTP call: the transport is stateless). `agent` may be
 * a function: stdio asks it at each call, so a key revoked or narrowed meanwhile is seen at once.
 */
export async function agentServer(agentOf: AgentContext | (() => Promise<AgentContext>)) {
  const { McpServer } = await loadSdk();
  const server = new McpServer(
    { name: 'cms', version: KERNEL_VERSION },
    {
      instructions: 'Content tools of this CMS. Writes are drafts unless publish: true and the key may publish. Call describe_model first.',
    },
  );
  const agentNow = () => (typeof agentOf === 'function' ? agentOf() : Promise.resolve(agentOf));
  auditRefusedArguments(server, agentNow);
  for (const tool of TOOLS)
    server.registerTool(tool.name, { description: tool.description, inputSchema: tool.input }, async (args: Record<string, unknown>) => {
      const agent = await agentNow();
      const result = await audited(agent, tool.name, tool.target(args), () => tool.run(agent, args));
      const body = result.ok ? result.answer : result.error;
      return { content: [{ type: 'text' as const, text: JSON.stringify(body) }], ...(result.ok ? {} : { isError: true }) };
    });
  return server;
}

/**
 * A call whose arguments do not match the tool's schema is answered by the SDK before the tool runs: audited here too
 * (as a refused call of that tool), by wrapping the server's argument check. test/integration/mcp.test.ts asserts the
 * entry, so an SDK that renames the check fails that test instead of calls going unaudited.
 */
function auditRefusedArguments(server: object, agentNow: () => Promise<AgentContext>): void {
  const target = server as { validateToolInput?: (tool: unknown, args: unknown, name: string) => Promise<unknown> };
  const check = target.validateToolInput?.bind(server);
  if (!check) return;
  target.validateToolInput = async (tool, args, name) => {
    try {
      return await check(tool, args, name);
    } catch (err) {
      const agent = await agentNow();
      const known = TOOLS.find((t) => t.name === name);
      await audited(agent, known ? name : 'unknown_tool', { argumentsRefused: true }, () => {
        throw new ValidationError(`Invalid arguments for ${String(name).slice(0, 64)}`, [
          { path: 'arguments', message: 'do not match the tool' },
        ]);
      });
      throw err;
    }
  };
}
