import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { asFunction, asValue } from 'awilix';
import {
  type EventBus,
  type IdentifyRequest,
  definePlugin,
  type Logger,
  optional,
  type PluginRegisterContext,
  type Registries,
  DIST_ROOT,
} from '../../kernel/sdk.js';
import { COLLECTIONS_CHANGED, type CollectionsService as CollectionsPort, type EntriesService as EntriesPort } from '../content/public.js';
import { ExplorerBuild } from './explorer-build.js';
import { GraphqlExplorer } from './graphql-explorer.js';
import { GraphqlService } from './graphql-service.js';
import { GraphqlSettings } from './graphql-settings.js';
import { GraphqlSockets } from './graphql-sockets.js';
import { optionsSchema, readGraphqlEnv } from './options.js';
import { graphqlRoutes } from './routes.js';

/** The WebSocket side and the service, per kernel (a definePlugin factory: several kernels may share a process in tests). */
interface State {
  sockets: GraphqlSockets | null;
  service: GraphqlService | null;
  settings: GraphqlSettings | null;
}

/** The /api/graphql WebSocket endpoint (503 until boot opened it) and the 'graphql' health check. */
function addEndpointAndHealth(registries: PluginRegisterContext['registries'], state: State, explorer: GraphqlExplorer): void {
  registries.websockets.add({
    id: 'graphql',
    path: '/api/graphql',
    handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
      if (state.sockets) return state.sockets.handleUpgrade(req, socket, head);
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    },
  });
  registries.healthChecks.add({
    id: 'graphql',
    async check() {
      const built = state.service?.current();
      return {
        status: 'ok' as const,
        connections: state.sockets?.connectionCount ?? 0,
        subscriptions: state.service?.activeSubscriptions ?? 0,
        collections: built?.included.length ?? 0,
        collectionsLeftOut: built?.clashes.length ?? 0,
        // Whether GET /api/graphql serves the explorer to browsers (the admin UI's System page links to it then).
        explorer: explorer.enabled,
      };
    },
  });
}

export default definePlugin(() => {
  const state: State = { sockets: null, service: null, settings: null };
  return {
    options: optionsSchema,
    readEnv: readGraphqlEnv,
    register({ container, routes, registries, options }) {
      const limits = (tenantId: string) => state.settings?.limits(tenantId) ?? options;
      container.register(
        'graphql',
        asFunction(
          (c: { collections: CollectionsPort; entries: EntriesPort; events: EventBus; logger: Logger; registries: Registries }) =>
            new GraphqlService({
              collections: c.collections,
              entries: c.entries,
              events: c.events,
              logger: c.logger,
              options,
              limits,
              contributions: () => c.registries.graphql.list(),
            }),
        ).singleton(),
      );
      const explorer = new GraphqlExplorer(options.explorer, new ExplorerBuild(join(DIST_ROOT, 'graphql-explorer')));
      container.register('graphqlExplorer', asValue(explorer));
      for (const route of graphqlRoutes) routes.add(route);
      addEndpointAndHealth(registries, state, explorer);
    },
    async boot({ container, config, logger, options, pluginConfig, onClose, follow }) {
      // GRAPHQL_MAX_DEPTH / GRAPHQL_MAX_COST (System Settings of the setup plugin per tenant, when it is enabled): kept
      // by GraphqlSettings, since the kernel reads the default tenant's settings only; a configured option wins.
      const configured = new Set(Object.keys(options).filter((key) => pluginConfig.sourceOf(key) !== 'default'));
      const settings = new GraphqlSettings(options, configured, () => optional(container.cradle, 'settings'), logger, follow);
      await settings.ready();
      state.settings = settings;
      onClose(() => {
        state.settings = null;
      });
      const service = container.resolve<GraphqlService>('graphql');
      state.service = service;
      service.current(); // a schema that cannot be built fails the boot, not the first request
      // Rebuild at once when any instance changes a collection (each operation checks again anyway).
      onClose(
        container.resolve<EventBus>('events').subscribe(COLLECTIONS_CHANGED, () => {
          service.current();
        }),
      );
      state.sockets = new GraphqlSockets({
        service,
        identify: container.resolve<IdentifyRequest>('identify'),
        logger,
        options,
        trustProxy: config.http.trustProxy,
        events: container.resolve<EventBus>('events'),
        maintenance: () => optional(container.cradle, 'maintenance'),
      });
    },
    async close() {
      await state.sockets?.close();
      state.sockets = null;
    },
  };
});
