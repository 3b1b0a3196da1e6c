/**
 * Relation order of collections created together (a backup restore, a content package, configuration
 * promotion): a collection whose relation field targets another created one comes after it, since the
 * collections service checks that a relation's target exists.
 */

/** The collections a schema's relation fields target (its own name included when it relates to itself). */
export function relationTargets(fields: ReadonlyArray<{ type?: string; collection?: unknown }>): string[] {
  return fields.filter((f) => f.type === 'relation' && typeof f.collection === 'string').map((f) => f.collection as string);
}

/**
 * The collections of `wanted` (name -> relation targets) in an order where each comes after the ones it
 * relates to (depth first, in the map's order otherwise); targets outside `wanted` and cycles are ignored.
 */
export function creationOrder(wanted: ReadonlyMap<string, readonly string[]>): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const visit = (name: string, path: Set<string>) => {
    if (seen.has(name) || path.has(name)) return;
    path.add(name);
    for (const target of wanted.get(name) ?? []) if (wanted.has(target)) visit(target, path);
    path.delete(name);
    seen.add(name);
    out.push(name);
  };
  for (const name of wanted.keys()) visit(name, new Set());
  return out;
}
