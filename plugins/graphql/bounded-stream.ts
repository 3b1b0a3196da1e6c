/**
 * An async iterator over pushed values, bounded: when a slow consumer has `maxQueued` values waiting, the
 * oldest are dropped. return() (the client unsubscribes or disconnects) ends it once and calls `ended()`.
 */
export abstract class BoundedStream<T> implements AsyncIterableIterator<T> {
  private readonly queue: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | null = null;
  done = false;

  constructor(private readonly maxQueued: number) {}

  /** What ending it releases (bus subscriptions, a group membership). */
  protected abstract ended(): void;

  protected push(value: T): void {
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
      this.ended();
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
