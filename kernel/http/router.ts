import { match, type MatchFunction } from 'path-to-regexp';
import type { RegisteredRoute, RouteTable } from './route-table.js';

export interface RouteMatch {
  route: RegisteredRoute;
  params: Record<string, string>;
}

export type MatchOutcome = { kind: 'found'; match: RouteMatch } | { kind: 'method'; allowed: string[] } | { kind: 'none' };

type Compiled = { route: RegisteredRoute; test: MatchFunction<Record<string, string>> };

/** A segment that is not literal text in path-to-regexp's syntax (parameter, wildcard, group, escape). */
const DYNAMIC_SEGMENT = /[:*{}()?+\\]/;
/** Only plain ASCII keys are bucketed: the routes' literal text compares case-insensitively like the regex does. */
const ASCII_KEY = /^[\x20-\x7e]*$/;

/** The bucket of a path: its first two segments, lower-cased ('' where a segment is missing). */
function keyOf(path: string): string {
  const second = path.indexOf('/', 1);
  if (second < 0) return `${path.slice(1)}/`.toLowerCase();
  const third = path.indexOf('/', second + 1);
  return path.slice(1, third < 0 ? undefined : third).toLowerCase();
}

/**
 * Matches a request to a declared route once; later stages read the match from ctx.state. Routes are
 * bucketed by their first two literal segments, so a request tests the routes that can match it (its
 * bucket's and those with a parameter or wildcard in the first two segments), in declaration order.
 */
export class Router {
  private compiled: { buckets: Map<string, Compiled[]>; dynamic: Compiled[]; all: Compiled[] } | null = null;

  constructor(private readonly table: RouteTable) {}

  private routes(path: string): Compiled[] {
    if (!this.compiled) {
      const all = this.table.list().map((route) => ({
        route,
        test: match<Record<string, string>>(route.path, { decode: decodeURIComponent, sensitive: false, trailing: true }),
      }));
      const dynamic: Compiled[] = [];
      const keyed = new Map<string, Set<Compiled>>();
      for (const c of all) {
        const [, first = '', second = ''] = c.route.path.split('/');
        if (DYNAMIC_SEGMENT.test(first) || DYNAMIC_SEGMENT.test(second) || !ASCII_KEY.test(first + second)) dynamic.push(c);
        else {
          const key = `${first}/${second}`.toLowerCase();
          if (!keyed.has(key)) keyed.set(key, new Set());
          keyed.get(key)!.add(c);
        }
      }
      const buckets = new Map<string, Compiled[]>();
      for (const [key, members] of keyed)
        buckets.set(
          key,
          all.filter((c) => members.has(c) || dynamic.includes(c)),
        );
      this.compiled = { buckets, dynamic, all };
    }
    const key = keyOf(path);
    if (!ASCII_KEY.test(key)) return this.compiled.all;
    return this.compiled.buckets.get(key) ?? this.compiled.dynamic;
  }

  find(method: string, path: string): MatchOutcome {
    const m = method === 'HEAD' ? 'GET' : method;
    let allowed: Set<string> | null = null;
    for (const { route, test } of this.routes(path)) {
      let result: ReturnType<typeof test>;
      try {
        result = test(path);
      } catch {
        continue; // undecodable percent-encoding: no route matches it
      }
      if (!result) continue;
      if (route.method === m) return { kind: 'found', match: { route, params: { ...result.params } } };
      (allowed ??= new Set()).add(route.method);
    }
    if (allowed) return { kind: 'method', allowed: [...allowed].sort() };
    return { kind: 'none' };
  }
}
