/**
 * Memory during bulk work (CMS_BULK_HEAP_GROWTH_PERCENT). V8 sizes its next full collection from what
 * survived the last one times a factor it adapts up to 4: with the heap limit of a machine with much
 * memory, a 100,000-entry import (live set about 65 MiB, allocating heavily) let the heap reach 430 MiB
 * before collecting, and the server peaked above 500 MiB. While a data operation plans or applies,
 * the growth is fixed to this percent instead, from a full collection at the start (the flag is read at
 * every collection, so it can change at run time); when the last one ends, V8's adaptive factor is back, so request latency outside bulk
 * work does not pay for the extra collections (README, "Memory during data operations", with bench
 * case 12 and the HTTP cases). The flag is process-wide: the count covers every kernel of the process.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let percent = 0;
let active = 0;
let collect: (() => void) | null | undefined;

/**
 * A full collection, so the fixed growth starts from the live set and not from a limit V8 set earlier
 * (several times the heap a moment ago). V8's gc() is taken once from a fresh context with the flag on
 * for that moment only; where it is not available, the growth applies from the next collection.
 */
function collectNow(): void {
  if (collect === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    } catch {
      collect = null;
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  }
  collect?.();
}

/** Called by the kernel with its configuration (0: never change V8's growth). */
export function setBulkHeapGrowth(value: number): void {
  percent = value;
}

/** Runs bulk work with the fixed heap growth (nested and concurrent calls share it). */
export async function withBulkHeapGrowth<T>(work: () => Promise<T>): Promise<T> {
  if (!percent) return work();
  if (active++ === 0) {
    setFlagsFromString(`--heap-growing-percent=${percent}`);
    collectNow();
  }
  try {
    return await work();
  } finally {
    if (--active === 0) setFlagsFromString('--heap-growing-percent=0');
  }
}

/** How many bulk runs hold the fixed growth now (for tests and metrics). */
export const bulkHeapGrowthActive = (): number => active;
