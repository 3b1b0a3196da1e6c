/**
 * A small in-process cache of /files/ lookups (path -> record), so a hot file does not cost a
 * database query per request. Safe to keep briefly: what /files/ reads from a record (tenant,
 * privacy, type, path) never changes; a deleted file is caught by the driver's head() (404); a
 * rename shows within the TTL on other instances, at once on this one (entries are dropped on change).
 */
export class PathCache<T> {
  private readonly entries = new Map<string, { value: T | null; until: number }>();

  constructor(
    private readonly ttlMs = 10000,
    private readonly max = 2000,
  ) {}

  get(path: string): T | null | undefined {
    const hit = this.entries.get(path);
    if (!hit) return undefined;
    if (hit.until < Date.now()) {
      this.entries.delete(path);
      return undefined;
    }
    return hit.value;
  }

  set(path: string, value: T | null): void {
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(path, { value, until: Date.now() + this.ttlMs });
  }

  /** Drops every entry that starts with the stem of a stored path (the original and its thumbnails). */
  forget(path: string): void {
    const stem = path.replace(/\.[^./]+$/, '');
    for (const key of this.entries.keys()) if (key.startsWith(stem)) this.entries.delete(key);
  }
}
