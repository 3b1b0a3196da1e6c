import type { BusEvent, EventBus } from '../../kernel/sdk.js';

/**
 * The source stream of one subscription: the bus events of the given names that `pick` maps to a
 * value (undefined: not for this subscriber). Bounded: when a slow subscriber has `maxQueued` values
 * waiting, the oldest are dropped. return() (client unsubscribes or disconnects) unsubscribes from the bus.
 */
export class EventStream<T> implements AsyncIterableIterator<T> {
  private readonly queue: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | null = null;
  private done = false;
  private readonly unsubscribes: Array<() => void>;

  constructor(
    events: Pick<EventBus, 'subscribe'>,
    names: string[],
    pick: (event: BusEvent) => T | undefined,
    private readonly maxQueued: number,
    private readonly onEnd: () => void = () => undefined,
  ) {
    this.unsubscribes = names.map((name) =>
      events.subscribe(name, (event) => {
        const value = pick(event);
        if (value !== undefined) this.push(value);
      }),
    );
  }

  private push(value: T): void {
    if (this.done) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve({ value, done: false });
      return;
    }
    this.queue.push(value);
    if (this.queue.length > this.maxQueued) this.queue.shift();
  }

  next(): Promise<IteratorResult<T>> {
    if (this.queue.length) return Promise.resolve({ value: this.queue.shift()!, done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  return(): Promise<IteratorResult<T>> {
    if (!this.done) {
      this.done = true;
      this.queue.length = 0;
      for (const unsubscribe of this.unsubscribes) unsubscribe();
      this.onEnd();
      this.waiting?.({ value: undefined, done: true });
      this.waiting = null;
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(): Promise<IteratorResult<T>> {
    return this.return();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
