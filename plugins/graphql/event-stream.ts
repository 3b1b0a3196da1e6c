import type { BusEvent, EventBus } from '../../kernel/sdk.js';
import { BoundedStream } from './bounded-stream.js';

/**
 * The source stream of one subscription: the bus events of the given names that `pick` maps to a
 * value (undefined: not for this subscriber). Bounded: when a slow subscriber has `maxQueued` values
 * waiting, the oldest are dropped. return() (client unsubscribes or disconnects) unsubscribes from the bus.
 */
export class EventStream<T> extends BoundedStream<T> {
  private readonly unsubscribes: Array<() => void>;

  constructor(
    events: Pick<EventBus, 'subscribe'>,
    names: string[],
    pick: (event: BusEvent) => T | undefined,
    maxQueued: number,
    private readonly onEnd: () => void = () => undefined,
  ) {
    super(maxQueued);
    this.unsubscribes = names.map((name) =>
      events.subscribe(name, (event) => {
        const value = pick(event);
        if (value !== undefined) this.push(value);
      }),
    );
  }

  protected ended(): void {
    for (const unsubscribe of this.unsubscribes) unsubscribe();
    this.onEnd();
  }
}
