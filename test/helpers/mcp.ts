/** The MCP tests' helpers: an API key made as a user does, and the SDK's client over streamable HTTP. */
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TestKernel } from './kernel.js';
import { signInCookie } from './users.js';

export const MCP_PASSWORD = 'correct horse battery';

/** An API key made through POST /api/api-keys by a freshly signed-in user (sudo mode), with an optional scope. */
export async function apiKey(t: TestKernel, who: { email: string }, name: string, permissions: string[], scope?: unknown): Promise<string> {
  const cookie = await signInCookie(t, who.email, MCP_PASSWORD);
  const res = await t.request('/api/api-keys', { method: 'POST', headers: { cookie: cookie! }, json: { name, permissions, scope } });
  expect(res.status, JSON.stringify(await res.clone().json())).to.equal(201);
  return (await res.json()).data.key;
}

/** The SDK's client, connected to /api/mcp with the key. */
export async function connect(t: TestKernel, key: string): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/api/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

type ToolResult = { isError?: boolean; content: Array<{ type: string; text: string }> };
/** Whether a tool call answered an error. */
export const isError = (r: unknown) => (r as ToolResult).isError === true;
/** The JSON a tool answered. */
export const body = (r: unknown) => JSON.parse((r as ToolResult).content[0]!.text);
