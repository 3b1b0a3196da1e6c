/**
 * `cms mcp` (stdio mode): the MCP server on standard input and output, for clients that start the server themselves
 * (Claude Desktop, editors). The key comes from CMS_MCP_KEY (preferred: a command line shows in `ps` and the shell
 * history) or `--key`. Standard output carries only the protocol; the kernel logs to standard error (kernel/cli.ts).
 * One connection is one agent session; the key is resolved again at every call (a revoked key stops at once).
 */
import { randomUUID } from 'node:crypto';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { parseArgs } from 'node:util';
import type { CliCommand, IdentifyRequest, Identity } from '../../kernel/sdk.js';
import type { AgentContext, AgentServices } from './agent.js';
import type { KeyNames } from './key-names.js';
import { agentServer } from './server.js';

const HELP = `
Runs the MCP server over standard input and output until the client closes it.
The API key: the environment variable CMS_MCP_KEY (preferred), or --key KEY.

Example (Claude Desktop, claude_desktop_config.json):
  { "mcpServers": { "cms": { "command": "npx", "args": ["cms", "mcp"], "env": { "CMS_MCP_KEY": "sck_…" } } } }
`;

export function mcpCommand(deps: {
  services: () => AgentServices;
  keyNames: () => KeyNames;
  envKey: () => string | undefined;
}): CliCommand {
  return {
    name: 'mcp',
    usage: '[--key KEY]',
    summary: 'The MCP server for agents over stdio, acting with an API key (CMS_MCP_KEY or --key)',
    help: HELP,
    async run({ kernel, args }) {
      const { values } = parseArgs({ args, options: { key: { type: 'string' } }, allowPositionals: false });
      const key = values.key ?? deps.envKey() ?? '';
      if (!key.startsWith('sck_')) throw new Error('cms mcp needs an API key (sck_…): set CMS_MCP_KEY or pass --key');
      const identify = kernel.container.resolve<IdentifyRequest>('identify');
      const resolve = async (): Promise<Identity> => {
        const req = new IncomingMessage(new Socket());
        req.headers = { host: 'localhost' };
        const identity = await identify(req, { authorization: `Bearer ${key}` });
        if (identity.kind !== 'apiKey') throw new Error('The key is not an API key');
        return identity;
      };
      await resolve().catch(() => {
        throw new Error('The API key is unknown, revoked or expired');
      });
      const sessionId = randomUUID();
      const agent = async (): Promise<AgentContext> => {
        const identity = await resolve();
        const { keyId, keyName } = await deps.keyNames().of(identity);
        return { identity, keyId, keyName, sessionId, via: 'stdio', services: deps.services() };
      };
      const server = await agentServer(agent);
      const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((resolve) => {
        transport.onclose = () => resolve();
        process.stdin.once('end', () => resolve());
      });
      await server.connect(transport);
      process.stderr.write(`cms mcp: serving over stdio (session ${sessionId})\n`);
      await closed;
      await server.close().catch(() => undefined);
    },
  };
}
