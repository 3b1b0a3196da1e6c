import type { BusEvent, EventBus } from '../../kernel/sdk.js';
import { BoundedStream } from './bounded-stream.js';

/**
 * The source stream of one subscription: the bus events of the given names that `pick` maps to a
 * value (undefined: not for this subscriber). Bounded: when a slow subscriber has `maxQueued` values
 * waiting, the oldest are dropped. return() (client unsubscribes or disconnects) unsubscribes from the bus.
 * `pick` may answer a promise (a role's rule checked in the database): values still go out in the order
 * of their events, each after the ones before it were decided; a failed check drops its event.
 */
export class EventStream<T> extends BoundedStream<T> {
  private readonly unsubscribes: Array<() => void>;
  /** The last pending check, which later events wait for (so they keep their order); null when none is pending. */
  private pending: Promise<void> | null = null;

  constructor(
    events: Pick<EventBus, 'subscribe'>,
    names: string[],
    pick: (event: BusEvent) => T | undefined | Promise<T | undefined>,
    maxQueued: number,
    private readonly onEnd: () => void = () => undefined,
  ) {
    super(maxQueued);
    this.unsubscribes = names.map((name) =>
      events.subscribe(name, (event) => {
        const value = pick(event);
        if (this.pending === null && !(value instanceof Promise)) {
          if (value !== undefined) this.push(value);
          return;
        }
        const after = (this.pending ?? Promise.resolve())
          .then(() => value)
          .then(
            (v) => {
              if (v !== undefined && !this.done) this.push(v);
            },
            () => undefined,
          );
        this.pending = after;
        void after.then(() => {
          if (this.pending === after) this.pending = null;
        });
      }),
    );
  }

  protected ended(): void {
    for (const unsubscribe of this.unsubscribes) unsubscribe();
    this.onEnd();
  }
}
