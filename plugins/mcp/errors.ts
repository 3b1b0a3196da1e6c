import { defineError } from '../../kernel/sdk.js';

export class McpApiKeyRequiredError extends defineError(
  'MCP_API_KEY_REQUIRED',
  401,
  'The MCP endpoint (/api/mcp) takes an API key only (Authorization: Bearer sck_…): a session cookie or website token is not accepted there.',
  () => 'The MCP endpoint needs an API key: send Authorization: Bearer sck_… (session cookies and website tokens are not accepted)',
) {}

export class McpSessionNotFoundError extends defineError(
  'MCP_SESSION_NOT_FOUND',
  404,
  'No agent session with this id in your tenant (GET /api/mcp/sessions lists them).',
  (id: string) => `No agent session '${id.slice(0, 100)}'`,
) {}

export class McpSessionRevertedError extends defineError(
  'MCP_SESSION_REVERTED',
  409,
  'The agent session was already reverted; its changes cannot be reverted twice.',
  (id: string) => `The agent session '${id.slice(0, 100)}' was already reverted`,
) {}
