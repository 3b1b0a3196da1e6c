import {
  GraphQLError,
  execute,
  subscribe,
  getOperationAST,
  parse,
  specifiedRules,
  validate,
  visit,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { type BusEvent, type EventBus, hasPermission, type Identity, type Logger } from '../../kernel/sdk.js';
import type { GraphqlContribution } from './public.js';
import type {
  CollectionDefinition as CollectionLike,
  CollectionsService as CollectionsPort,
  EntriesService as EntriesPort,
} from '../content/public.js';
import { requestError, statusOf, SubscriptionLimitError } from './errors.js';
import { EventStream } from './event-stream.js';
import { formatErrors } from './format-error.js';
import { contextFor, type GraphqlContext } from './graphql-context.js';
import { costOf, depthOf } from './limits.js';
import type { GraphqlLimits } from './graphql-settings.js';
import type { GraphqlOptions } from './options.js';
import { buildSchema, type BuiltSchema } from './schema-builder.js';
import { selectsSharedOnly } from './shared-fields.js';
import { SubscriptionFanout, type Sink } from './subscription-fanout.js';
import { bracketDepth } from '../../lib/text/bracket-depth.js';

/** Documents remembered as shareable or not (subscription-fanout.ts), per schema and text; cleared when full. */
const SHAREABLE_MEMO = 500;

/** Deepest bracket nesting a GraphQL document may have before it is parsed (the depth rule then applies its own, lower limit). */
const MAX_DOCUMENT_NESTING = 200;

export interface GraphqlRequest {
  query?: unknown;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

/** Where the operation came from: GET runs queries only, HTTP runs no subscriptions. */
export type Transport = 'GET' | 'POST' | 'WS';

export interface PreparedOperation {
  schema: GraphQLSchema;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  operationName: string | undefined;
  variables: Record<string, unknown>;
}

export type Preparation = { ok: true; prepared: PreparedOperation } | { ok: false; errors: GraphQLError[] };

const fail = (...errors: GraphQLError[]): Preparation => ({ ok: false, errors });

function usesIntrospection(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value === '__schema' || node.name.value === '__type') found = true;
    },
  });
  return found;
}

/** The request itself: a query within the length limit, variables an object, brackets not nested too deep. */
function requestRefusal(request: GraphqlRequest, maxQueryLength: number): Preparation | null {
  if (typeof request.query !== 'string' || !request.query.trim())
    return fail(requestError('GRAPHQL_VALIDATION_FAILED', 'The request needs a query (a GraphQL document)'));
  if (request.query.length > maxQueryLength) {
    return fail(
      requestError('GRAPHQL_QUERY_TOO_LARGE', `The query is ${request.query.length} characters long; the limit is ${maxQueryLength}`),
    );
  }
  if (
    request.variables !== undefined &&
    request.variables !== null &&
    (typeof request.variables !== 'object' || Array.isArray(request.variables))
  ) {
    return fail(requestError('VALIDATION_ERROR', 'variables must be a JSON object'));
  }
  // graphql-js parses recursively: thousands of nested selections would overflow the stack before the depth rule runs.
  if (bracketDepth(request.query) > MAX_DOCUMENT_NESTING) {
    return fail(requestError('GRAPHQL_DEPTH_LIMIT', `The document nests deeper than ${MAX_DOCUMENT_NESTING} levels of brackets`));
  }
  return null;
}

function missingOperation(operationName: string | undefined): GraphQLError {
  return requestError(
    'GRAPHQL_VALIDATION_FAILED',
    operationName ? `No operation named '${operationName}'` : 'The document has several operations: name one in operationName',
  );
}

/** The operation on this transport (no subscription over HTTP, no mutation over GET) and introspection. */
function operationRefusal(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  transport: Transport,
  identity: Identity,
  introspection: boolean,
): Preparation | null {
  if (transport !== 'WS' && operation.operation === 'subscription') {
    return fail(
      requestError(
        'GRAPHQL_VALIDATION_FAILED',
        'Subscriptions are served over WebSocket at /api/graphql (subprotocol graphql-transport-ws or graphql-ws)',
      ),
    );
  }
  if (transport === 'GET' && operation.operation === 'mutation') return fail(requestError('METHOD_NOT_ALLOWED', 'Mutations need POST'));
  if (usesIntrospection(document)) {
    if (!introspection) return fail(requestError('GRAPHQL_VALIDATION_FAILED', 'Introspection is disabled on this server'));
    // The schema describes the collections, which REST shows to content:read only.
    if (!hasPermission(identity, 'content:read')) {
      return fail(
        identity.kind === 'guest'
          ? requestError('AUTHENTICATION_REQUIRED', 'Introspection needs the permission content:read; sign in first')
          : requestError('FORBIDDEN', 'Introspection needs the permission content:read'),
      );
    }
  }
  return null;
}

/** The tenant's depth and cost limits. */
function limitRefusal(p: PreparedOperation, limits: Pick<GraphqlLimits, 'maxDepth' | 'maxCost'>): Preparation | null {
  const depth = depthOf(p.document, p.operation);
  if (depth > limits.maxDepth)
    return fail(requestError('GRAPHQL_DEPTH_LIMIT', `The operation nests fields ${depth} deep; the limit is ${limits.maxDepth}`));
  let cost: number;
  try {
    cost = costOf(p.schema, p.document, p.operationName, p.variables);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return fail(
      requestError(/maximum allowed number of nodes/.test(message) ? 'GRAPHQL_COST_LIMIT' : 'GRAPHQL_VALIDATION_FAILED', message),
    );
  }
  if (cost > limits.maxCost) {
    return fail(
      requestError(
        'GRAPHQL_COST_LIMIT',
        `The operation's estimated cost is ${cost}; the limit is ${limits.maxCost} (a list query costs its limit times its items; ask for fewer)`,
      ),
    );
  }
  return null;
}

/**
 * The GraphQL endpoint's engine (container key `graphql`): the schema, rebuilt whenever the loaded
 * collections change (checked on every operation, and at once when a collection changes anywhere),
 * the checks every operation passes before it runs (size, syntax, schema, depth, cost, permission to
 * introspect), and the subscription streams fed by the event bus.
 */
export class GraphqlService {
  private built: (BuiltSchema & { from: CollectionLike[] }) | null = null;
  private openStreams = 0;
  private readonly shareable = new WeakMap<GraphQLSchema, Map<string, boolean>>();
  readonly fanout: SubscriptionFanout;

  constructor(
    private readonly deps: {
      collections: CollectionsPort;
      entries: EntriesPort;
      events: Pick<EventBus, 'subscribe'>;
      logger: Logger;
      contributions: () => GraphqlContribution[];
      options: GraphqlOptions;
      /** The depth and cost limits of a tenant (the GRAPHQL_MAX_* System Settings); default: the options. */
      limits?: (tenantId: string) => GraphqlLimits;
    },
  ) {
    this.fanout = new SubscriptionFanout({
      logger: deps.logger,
      maxQueued: deps.options.maxQueuedEvents,
      count: (delta) => {
        this.openStreams += delta;
      },
    });
  }

  /** The current schema; rebuilt when the collections (their loaded definitions) differ from the last build. */
  current(): BuiltSchema {
    // With their inverse fields (read-only lists of the entries pointing at each entry).
    const list = this.deps.collections.listForRead();
    const from = this.built?.from;
    if (!this.built || !from || from.length !== list.length || list.some((c, i) => c !== from[i])) {
      const built = buildSchema(list, {
        collections: this.deps.collections,
        entries: this.deps.entries,
        contributions: this.deps.contributions(),
        logger: this.deps.logger,
        stream: (ctx, names, pick) => this.stream(ctx, names, pick),
      });
      this.built = { ...built, from: list };
      this.deps.logger.debug({ collections: built.included.length }, 'graphql schema built');
    }
    return this.built;
  }

  schema(): GraphQLSchema {
    return this.current().schema;
  }

  /** A subscription's source stream, within its connection's budget. */
  private stream<T>(
    ctx: GraphqlContext,
    names: string[],
    pick: (event: BusEvent) => T | undefined | Promise<T | undefined>,
  ): EventStream<T> {
    const budget = ctx.streams;
    if (budget) {
      if (budget.open >= budget.max) throw new SubscriptionLimitError(budget.max);
      budget.open++;
    }
    // A group's source (subscription-fanout.ts) is not a subscriber: its members are counted.
    const counted = !ctx.sharedSource;
    if (counted) this.openStreams++;
    return new EventStream<T>(this.deps.events, names, pick, this.deps.options.maxQueuedEvents, () => {
      if (counted) this.openStreams--;
      if (budget) budget.open--;
    });
  }

  /**
   * Starts a prepared subscription (both WebSocket protocols). Operations that select only shared
   * fields join a group that executes once per event for every subscriber with the same document,
   * variables and permission context; `sink` sends a result straight to the subscriber (else the
   * returned iterator yields it). Others, and a connection at its subscription limit (whose refusal
   * then comes from the resolver, as always), run per subscriber through graphql-js.
   */
  async subscribe(args: ExecutionArgs, sink: Sink | null = null): Promise<AsyncIterable<ExecutionResult> | ExecutionResult> {
    const ctx = args.contextValue as GraphqlContext;
    const budget = ctx.streams;
    if ((budget && budget.open >= budget.max) || !this.isShareable(args)) return subscribe(args);
    // Members yield formatted results (errors as plain objects), which both protocol servers send as they are.
    return (await this.fanout.join(args, () => ctx.identity, budget, sink)) as AsyncIterable<ExecutionResult> | ExecutionResult;
  }

  private isShareable(args: ExecutionArgs): boolean {
    const text = args.document.loc?.source.body;
    if (text === undefined) return selectsSharedOnly(args.schema, args.document);
    let memo = this.shareable.get(args.schema);
    if (!memo) this.shareable.set(args.schema, (memo = new Map()));
    let shared = memo.get(text);
    if (shared === undefined) {
      shared = selectsSharedOnly(args.schema, args.document);
      if (memo.size >= SHAREABLE_MEMO) memo.clear();
      memo.set(text, shared);
    }
    return shared;
  }

  get activeSubscriptions(): number {
    return this.openStreams;
  }

  /** Checks an operation before it runs; every refusal is a GraphQL error with a stable code. */
  prepare(request: GraphqlRequest, identity: Identity, transport: Transport): Preparation {
    const o = this.deps.options;
    const refused = requestRefusal(request, o.maxQueryLength);
    if (refused) return refused;
    const query = request.query as string;
    let document: DocumentNode;
    try {
      document = parse(query);
    } catch (err) {
      if (err instanceof GraphQLError) return fail(requestError('GRAPHQL_PARSE_FAILED', err.message, err));
      if (err instanceof RangeError) return fail(requestError('GRAPHQL_DEPTH_LIMIT', 'The document is nested too deeply to parse'));
      throw err;
    }
    const schema = this.schema();
    const invalid = validate(schema, document, specifiedRules, { maxErrors: 20 });
    if (invalid.length) return fail(...invalid.map((e) => requestError('GRAPHQL_VALIDATION_FAILED', e.message, e)));
    const operationName = request.operationName ?? undefined;
    const operation = getOperationAST(document, operationName);
    if (!operation) return fail(missingOperation(operationName));
    const notAllowed = operationRefusal(document, operation, transport, identity, o.introspection);
    if (notAllowed) return notAllowed;
    const variables = request.variables ?? {};
    const prepared = { schema, document, operation, operationName, variables };
    return limitRefusal(prepared, this.deps.limits?.(identity.tenantId) ?? o) ?? { ok: true, prepared };
  }

  /** Runs a prepared query or mutation. */
  async execute(p: PreparedOperation, identity: () => Identity): Promise<ExecutionResult> {
    return execute({
      schema: p.schema,
      document: p.document,
      operationName: p.operationName,
      variableValues: p.variables,
      contextValue: contextFor(identity, p.operation.operation),
    });
  }

  /** One HTTP request: 4xx with `errors` when refused before execution, else 200 with `data` (and `errors`). */
  async http(
    request: GraphqlRequest,
    identity: Identity,
    transport: 'GET' | 'POST',
  ): Promise<{ status: number; body: FormattedExecutionResult }> {
    const prep = this.prepare(request, identity, transport);
    if (!prep.ok) return { status: statusOf(prep.errors), body: { errors: prep.errors.map((e) => e.toJSON()) } };
    const result = await this.execute(prep.prepared, () => identity);
    if (!('data' in result)) {
      // Variable values that do not fit their types: a request error, nothing ran.
      const errors = (result.errors ?? []).map((e) => requestError('GRAPHQL_VALIDATION_FAILED', e.message, e));
      return { status: 400, body: { errors: errors.map((e) => e.toJSON()) } };
    }
    const errors = formatErrors(result.errors, this.deps.logger);
    return { status: 200, body: { data: result.data, ...(errors ? { errors } : {}) } };
  }
}
