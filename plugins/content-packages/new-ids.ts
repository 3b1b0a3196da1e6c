/**
 * The ids an import plan gives the entries it creates: a UUID (v4 layout) derived from the entry's key
 * (`<collection>/<syncId>`) with HMAC-SHA-256 under a random secret of the plan. The same key gives the
 * same id throughout the plan (references to a new entry resolve to it), different plans give unrelated
 * ids, and nothing is kept per entry: a 100,000-entry plan held a map of 100,000 ids before (each
 * randomUUID() a tree of cons strings in V8, some 450 bytes).
 */
import { createHmac, randomBytes } from 'node:crypto';

export function newIdsOfPlan(): (key: string) => string {
  const secret = randomBytes(32);
  return (key) => {
    const b = createHmac('sha256', secret).update(key).digest().subarray(0, 16);
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    const h = b.toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  };
}
