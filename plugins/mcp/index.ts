import { asFunction } from 'awilix';
import type { Sequelize } from 'sequelize';
import { definePlugin, optional, type AuditLog, type ContainerServices } from '../../kernel/sdk.js';
import type { AgentServices } from './agent.js';
import { bulkDomain } from './bulk-domain.js';
import { mcpHttpRoute } from './http.js';
import { KeyNames } from './key-names.js';
import { MCP_MIGRATIONS } from './migrations.js';
import './public.js';
import { sessionRoutes } from './routes.js';
import { SessionStore } from './session-store.js';
import { mcpCommand } from './stdio-command.js';

/**
 * The MCP server for agents (docs/features/mcp.md): POST /api/mcp (streamable HTTP, stateless), `cms mcp` (stdio),
 * the agent sessions and their revert (/api/mcp/sessions), and the `mcp-entries` data-operation domain. The SDK is
 * imported on the first call only (server.ts).
 */
export default definePlugin(() => {
  let services: AgentServices | null = null;
  let keyNames: KeyNames | null = null;
  const ready = <T>(value: T | null, what: string): T => {
    if (!value) throw new Error(`The mcp plugin is not booted (${what})`);
    return value;
  };
  const agentServices = () => ready(services, 'services');
  const names = () => ready(keyNames, 'key names');
  return {
    register(ctx) {
      for (const m of MCP_MIGRATIONS) ctx.migrations.add(m);
      ctx.container.register(
        'mcpSessions',
        asFunction(({ sequelize }: { sequelize: Sequelize }) => new SessionStore(() => sequelize)).singleton(),
      );
      ctx.routes.add(mcpHttpRoute({ services: agentServices, keyNames: names }));
      for (const route of sessionRoutes({
        sessions: () => agentServices().sessions,
        contentClient: () => agentServices().contentClient,
        mediaClient: () => agentServices().mediaClient,
      }))
        ctx.routes.add(route);
      ctx.registries.dataDomains.add(bulkDomain(agentServices));
      // CMS_MCP_KEY (manifest env; plugins.options.mcp.stdioKey): the key of `cms mcp`, read by the kernel at start.
      const stdioKey = (ctx.envOptions.stdioKey ?? (ctx.options as { stdioKey?: unknown }).stdioKey) as string | undefined;
      ctx.registries.cliCommands.add(mcpCommand({ services: agentServices, keyNames: names, envKey: () => stdioKey }));
    },
    async boot({ container, config, logger, onClose }) {
      const cradle: ContainerServices & Record<string, any> = container.cradle;
      services = {
        collections: cradle.collections,
        contentClient: cradle.contentClient,
        mediaClient: optional(cradle, 'mediaClient'),
        dataOps: optional(cradle, 'dataOps'),
        audit: container.resolve<AuditLog>('audit'),
        sessions: container.resolve<SessionStore>('mcpSessions'),
        logger,
        allowPrivate: config.outbound.allowPrivate,
      };
      keyNames = new KeyNames(() => cradle.tokens);
      onClose(() => {
        services = null;
        keyNames = null;
      });
    },
  };
});
