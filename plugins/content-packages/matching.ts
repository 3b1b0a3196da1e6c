/**
 * Identity matching of incoming package entries to the target's entries, in the spec's priority:
 * manual mappings decide first (they resolve what the tiers leave ambiguous), then per tier over all
 * still-open entries: (1) syncId, (2) external id (importer links, earlier package imports from the same
 * source installation), (3) natural key (slug, unique fields). A target entry claimed in an earlier tier
 * is no candidate later. Several candidates for one entry, or one target chosen by several entries of
 * the same tier, is ambiguous: flagged (warning + blocked) until a mapping resolves it. No candidate: new.
 */

export interface IncomingIdentity {
  /** `<collection>/<syncId>`. */
  key: string;
  collection: string;
  /** Candidates per tier (target entry ids of the same collection). */
  bySyncId: string | null;
  byExternal: string[];
  byNatural: string[];
}

export type MatchDecision =
  | { kind: 'matched'; targetId: string; how: 'syncId' | 'external' | 'natural' | 'mapping' }
  | { kind: 'new' }
  | { kind: 'skip' }
  | { kind: 'ambiguous'; candidates: string[] };

/** Shared decisions without data (a 100,000-entry plan holds one per entry: not one object each). */
const NONE: string[] = [];
const NEW: MatchDecision = Object.freeze({ kind: 'new' });
const SKIP: MatchDecision = Object.freeze({ kind: 'skip' });

/** `mappings` values: a target entry id, "new" or "skip" (checked by the caller). */
export function matchIdentities(incoming: IncomingIdentity[], mappings: Map<string, string>): Map<string, MatchDecision> {
  const out = new Map<string, MatchDecision>();
  const claimed = new Set<string>();
  const claimKey = (collection: string, id: string) => `${collection}\0${id}`;
  for (const it of incoming) {
    const mapped = mappings.get(it.key);
    if (mapped === undefined) continue;
    if (mapped === 'new') out.set(it.key, NEW);
    else if (mapped === 'skip') out.set(it.key, SKIP);
    else {
      out.set(it.key, { kind: 'matched', targetId: mapped, how: 'mapping' });
      claimed.add(claimKey(it.collection, mapped));
    }
  }
  const tiers: Array<{ how: 'syncId' | 'external' | 'natural'; candidates: (it: IncomingIdentity) => string[] }> = [
    { how: 'syncId', candidates: (it) => (it.bySyncId ? [it.bySyncId] : NONE) },
    { how: 'external', candidates: (it) => it.byExternal },
    { how: 'natural', candidates: (it) => it.byNatural },
  ];
  for (const tier of tiers) {
    const tentative = new Map<string, IncomingIdentity[]>();
    for (const it of incoming) {
      if (out.has(it.key)) continue;
      const offered = tier.candidates(it);
      if (!offered.length) continue;
      const candidates = [...new Set(offered)].filter((id) => !claimed.has(claimKey(it.collection, id)));
      if (candidates.length > 1) out.set(it.key, { kind: 'ambiguous', candidates: candidates.sort() });
      else if (candidates.length === 1) {
        const k = claimKey(it.collection, candidates[0]!);
        tentative.set(k, [...(tentative.get(k) ?? []), it]);
      }
    }
    for (const [k, its] of tentative) {
      const targetId = k.slice(k.indexOf('\0') + 1);
      if (its.length > 1) for (const it of its) out.set(it.key, { kind: 'ambiguous', candidates: [targetId] });
      else {
        out.set(its[0]!.key, { kind: 'matched', targetId, how: tier.how });
        claimed.add(k);
      }
    }
  }
  for (const it of incoming) if (!out.has(it.key)) out.set(it.key, NEW);
  return out;
}
