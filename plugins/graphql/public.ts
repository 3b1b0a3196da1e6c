/**
 * The graphql plugin's public surface (type-only): declares its container key, so `scope.graphql` is
 * typed in route handlers, and the contract of the `graphql` extension point it reads.
 */
import type { GraphqlExplorer } from './graphql-explorer.js';
import type { GraphqlService } from './graphql-service.js';

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    graphql: GraphqlService;
    graphqlExplorer: GraphqlExplorer;
  }
}

/** A slice of the GraphQL schema contributed by a plugin. */
export interface GraphqlContribution {
  id: string;
  typeDefs: string;
  resolvers: Record<string, unknown>;
}

declare module '../../kernel/sdk.js' {
  interface ExtensionPoints {
    graphql: GraphqlContribution;
  }
}
