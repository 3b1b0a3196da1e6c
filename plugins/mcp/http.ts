/**
 * POST /api/mcp: the streamable HTTP transport of MCP, stateless (a new server and transport per request, JSON
 * answers): any instance behind a load balancer answers any call, and nothing is kept in memory between calls. The
 * server hands out an `Mcp-Session-Id` at `initialize`; the client sends it back with every call, and it names the
 * agent session the writes are recorded under (a call without one is a session of its own). GET and DELETE (a
 * server-to-client stream, ending a session) answer 405: there is no stream, and a session holds no server state.
 *
 * Only an API key is accepted (Authorization: Bearer sck_…): no session cookie (a browser page of another site could
 * make a signed-in administrator's browser call tools), no website token.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import type { AgentServices } from './agent.js';
import { McpApiKeyRequiredError } from './errors.js';
import type { KeyNames } from './key-names.js';
import { agentServer } from './server.js';

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const message = z.object({ jsonrpc: z.literal('2.0'), method: z.string().max(200).optional() }).passthrough();
const jsonRpcBody = z.union([message, z.array(message).min(1).max(50)]).describe('A JSON-RPC 2.0 message of MCP, or a batch of them');

const isInitialize = (body: unknown) =>
  (Array.isArray(body) ? body : [body]).some((m) => (m as { method?: unknown } | null)?.method === 'initialize');

export function mcpHttpRoute(deps: { services: () => AgentServices; keyNames: () => KeyNames }): RouteDefinition {
  return defineRoute({
    method: 'POST',
    path: '/api/mcp',
    // Checked in the handler: only an API key passes (MCP_API_KEY_REQUIRED for anyone else, a signed-in browser too).
    permission: 'public',
    summary: 'The MCP server (streamable HTTP, stateless, JSON answers): tools for agents, with an API key only',
    description:
      'Send `Authorization: Bearer sck_…` and `Accept: application/json, text/event-stream`. The answer of `initialize` carries `Mcp-Session-Id`; send it back with every call (it groups the writes into one agent session an administrator can revert). docs/features/mcp.md lists the tools.',
    tags: ['mcp'],
    request: { body: jsonRpcBody },
    envelope: false,
    async handler({ ctx, identity, body }) {
      if (identity.kind !== 'apiKey') {
        ctx.set('WWW-Authenticate', 'Bearer');
        throw new McpApiKeyRequiredError();
      }
      const services = deps.services();
      const { keyId, keyName } = await deps.keyNames().of(identity);
      const header = ctx.get('mcp-session-id').toLowerCase();
      const sessionId = isInitialize(body) || !SESSION_ID.test(header) ? randomUUID() : header;
      const server = await agentServer({ identity, keyId, keyName, sessionId, via: 'http', services });
      const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      ctx.respond = false;
      ctx.res.setHeader('Mcp-Session-Id', sessionId);
      ctx.res.on('close', () => void server.close().catch(() => undefined));
      await server.connect(transport);
      await transport.handleRequest(ctx.req, ctx.res, body);
    },
  });
}
