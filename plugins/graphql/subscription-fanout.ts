import {
  createSourceEventStream,
  execute,
  print,
  type ExecutionArgs,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import type { Identity, Logger } from '../../kernel/sdk.js';
import { BoundedStream } from './bounded-stream.js';
import { formatErrors } from './format-error.js';
import { contextFor, type StreamBudget } from './graphql-context.js';
import { permissionKey } from './shared-fields.js';

/** Distinct subscription ids whose `next` frame one result keeps (clients often number theirs from 1). */
const FRAMES_KEPT = 8;

/** One event's result, executed and formatted once for a group; its JSON text made once, on first use. */
export class SharedResult {
  private text: Buffer | null = null;
  private readonly frames = new Map<string, Buffer>();

  constructor(readonly value: FormattedExecutionResult) {}

  /** `{"data":...,"errors":[...]}` as UTF-8 bytes. */
  get json(): Buffer {
    return (this.text ??= Buffer.from(JSON.stringify(this.value)));
  }

  /** The `next` frame for subscription id `id`, made by `make` once for the first FRAMES_KEPT ids (others each time). */
  frame(id: string, make: () => Buffer): Buffer {
    let frame = this.frames.get(id);
    if (frame) return frame;
    frame = make();
    if (this.frames.size < FRAMES_KEPT) this.frames.set(id, frame);
    return frame;
  }
}

/** Sends a result straight to one subscriber (graphql-transport-ws: framed onto its socket); without one, the member queues. */
export type Sink = (result: SharedResult) => void;

/** Sends to this many subscribers, then lets the event loop run (other requests, pings) before the next slice. */
const SLICE = 2000;
const schemaIds = new WeakMap<GraphQLSchema, number>();
let lastSchemaId = 0;
const schemaId = (schema: GraphQLSchema) => {
  let id = schemaIds.get(schema);
  if (id === undefined) schemaIds.set(schema, (id = ++lastSchemaId));
  return id;
};

/**
 * One subscriber: the async iterator the protocol server holds. With a sink, results go out through it
 * and the iterator yields nothing (it ends on return()); without one (the legacy protocol), results
 * wait in a queue of at most `maxQueued` (the oldest dropped) and the iterator yields them.
 */
class Member extends BoundedStream<FormattedExecutionResult> {
  group: Group | null = null;
  /** The permission key the member was grouped by, and the identity object it was computed from. */
  key: string;
  keyed: Identity;

  constructor(
    private readonly fanout: SubscriptionFanout,
    readonly identity: () => Identity,
    readonly budget: StreamBudget | null,
    readonly sink: Sink | null,
    maxQueued: number,
  ) {
    super(maxQueued);
    this.keyed = identity();
    this.key = permissionKey(this.keyed);
  }

  deliver(result: SharedResult): void {
    if (this.done) return;
    if (this.sink) return this.sink(result);
    this.push(result.value);
  }

  protected ended(): void {
    this.fanout.leave(this);
  }
}

/**
 * The subscribers of one (schema, document, operation, variables, permission context): one source
 * stream from the event bus, one execution per event, one serialised result sent to every member.
 */
class Group {
  readonly members = new Set<Member>();
  source: AsyncIterator<unknown> | null = null;

  constructor(
    readonly key: string,
    readonly args: ExecutionArgs,
    /** Resolves to the source stream, or to the errors that refused it (e.g. no content:read). */
    readonly ready: Promise<AsyncIterable<unknown> | ExecutionResult>,
  ) {}
}

const isIterable = (v: unknown): v is AsyncIterable<unknown> =>
  typeof v === 'object' && v !== null && typeof (v as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function';

/**
 * Shared execution of subscriptions (the GraphQL service's `subscribe`). Without sharing, every
 * subscriber had its own bus listener, filter, execution, result object and JSON text per event;
 * here subscribers whose operation would resolve identically (same document and variables, and only
 * fields whose results depend on the permission context, see shared-fields.ts) form a group that
 * runs the filter and the selection once per event and hands the same bytes to every member.
 * A member whose identity's permission context changes (the connection's periodic re-check) is moved
 * to the group of its new context at the next event (it misses that one rather than get a result
 * computed for permissions it no longer has).
 */
export class SubscriptionFanout {
  private readonly groups = new Map<string, Group>();
  private members = 0;

  constructor(
    private readonly deps: {
      logger: Logger;
      maxQueued: number;
      /** Called with +1 / -1 as subscribers join and leave (the service's subscription count). */
      count: (delta: number) => void;
    },
  ) {}

  get groupCount(): number {
    return this.groups.size;
  }

  get memberCount(): number {
    return this.members;
  }

  /** Joins the group of these arguments (made on first use); resolves to the member, or to the errors that refused it. */
  async join(
    args: ExecutionArgs,
    identity: () => Identity,
    budget: StreamBudget | null,
    sink: Sink | null,
  ): Promise<AsyncIterableIterator<FormattedExecutionResult> | ExecutionResult> {
    const member = new Member(this, identity, budget, sink, this.deps.maxQueued);
    this.members++;
    this.deps.count(1);
    if (budget) budget.open++;
    let refused: ExecutionResult | null;
    try {
      refused = await this.attach(member, args);
    } catch (err) {
      void member.return(); // uncounted again
      throw err;
    }
    if (refused) {
      void member.return();
      return refused;
    }
    return member;
  }

  private groupKey(args: ExecutionArgs, key: string): string {
    const text = args.document.loc?.source.body ?? print(args.document);
    return JSON.stringify([schemaId(args.schema), text, args.operationName ?? null, args.variableValues ?? {}, key]);
  }

  /** Puts the member into the group of its current permission context; the errors when that context may not subscribe. */
  private async attach(member: Member, args: ExecutionArgs): Promise<ExecutionResult | null> {
    const identity = member.identity();
    member.keyed = identity;
    member.key = permissionKey(identity);
    const key = this.groupKey(args, member.key);
    let group = this.groups.get(key);
    if (!group) {
      // The group's context: a snapshot of the first member's identity (every member shares what the resolvers read of it).
      const contextValue = contextFor(() => identity, 'subscription', null, true);
      const shared: ExecutionArgs = { ...args, contextValue, rootValue: undefined };
      group = new Group(key, shared, createSourceEventStream(shared));
      this.groups.set(key, group);
      const made = group;
      void made.ready.then(
        (source) => {
          if (!isIterable(source)) {
            if (this.groups.get(key) === made) this.groups.delete(key);
            return;
          }
          made.source = source[Symbol.asyncIterator]();
          if (made.members.size === 0) return this.close(made);
          void this.pump(made);
        },
        () => {
          if (this.groups.get(key) === made) this.groups.delete(key);
        },
      );
    }
    member.group = group;
    group.members.add(member);
    let source: AsyncIterable<unknown> | ExecutionResult;
    try {
      source = await group.ready;
    } catch (err) {
      group.members.delete(member);
      member.group = null;
      throw err;
    }
    if (isIterable(source)) return null;
    group.members.delete(member);
    member.group = null;
    return source;
  }

  leave(member: Member): void {
    this.members--;
    this.deps.count(-1);
    if (member.budget) member.budget.open--;
    const group = member.group;
    member.group = null;
    if (!group) return;
    group.members.delete(member);
    if (group.members.size === 0 && group.source) this.close(group);
  }

  private close(group: Group): void {
    if (this.groups.get(group.key) === group) this.groups.delete(group.key);
    const source = group.source;
    group.source = null;
    void source?.return?.();
  }

  /** Runs the group's selection once per source event and sends the one result to every member. */
  private async pump(group: Group): Promise<void> {
    const { logger } = this.deps;
    for (;;) {
      const source = group.source;
      if (!source) return;
      let step: IteratorResult<unknown>;
      try {
        step = await source.next();
      } catch (err) {
        logger.error({ err }, 'graphql subscription source failed');
        return;
      }
      if (step.done || !group.source) return;
      let result: ExecutionResult;
      try {
        result = await execute({ ...group.args, rootValue: step.value });
      } catch (err) {
        logger.error({ err }, 'graphql subscription execution failed');
        continue;
      }
      const errors = formatErrors(result.errors, logger);
      await this.send(group, new SharedResult(errors ? { data: result.data, errors } : { data: result.data }));
    }
  }

  /** Sends to every member in slices; a member whose permission context changed is regrouped instead. */
  private async send(group: Group, result: SharedResult): Promise<void> {
    const members = [...group.members];
    const moved: Member[] = [];
    for (let i = 0; i < members.length;) {
      const end = Math.min(members.length, i + SLICE);
      for (; i < end; i++) {
        const m = members[i]!;
        if (m.done) continue;
        // The identity object changes only when the connection's identity is resolved again.
        const identity = m.identity();
        if (identity !== m.keyed) {
          if (permissionKey(identity) !== m.key) {
            moved.push(m);
            continue;
          }
          m.keyed = identity;
        }
        m.deliver(result);
      }
      if (i < members.length) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    for (const m of moved) void this.regroup(m, group);
  }

  private async regroup(member: Member, from: Group): Promise<void> {
    if (member.group !== from || member.done) return;
    from.members.delete(member);
    member.group = null;
    if (from.members.size === 0 && from.source) this.close(from);
    try {
      // Refused (the new context may not subscribe): the member stays, receiving nothing, until it ends.
      await this.attach(member, { ...from.args, contextValue: undefined });
    } catch (err) {
      this.deps.logger.error({ err }, 'graphql subscription regroup failed');
    }
    // It may have ended while it was being attached.
    const group = member.group as Group | null;
    if (member.done && group) {
      member.group = null;
      group.members.delete(member);
      if (group.members.size === 0 && group.source) this.close(group);
    }
  }
}
