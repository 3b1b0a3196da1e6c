/**
 * The graphql plugin's public surface (type-only): declares its container key, so `scope.graphql` is
 * typed in route handlers.
 */
import type { GraphqlExplorer } from './graphql-explorer.js';
import type { GraphqlService } from './graphql-service.js';

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    graphql: GraphqlService;
    graphqlExplorer: GraphqlExplorer;
  }
}
