import { match, type MatchFunction } from 'path-to-regexp';
import type { RegisteredRoute, RouteTable } from './route-table.js';

export interface RouteMatch {
  route: RegisteredRoute;
  params: Record<string, string>;
}

export type MatchOutcome = { kind: 'found'; match: RouteMatch } | { kind: 'method'; allowed: string[] } | { kind: 'none' };

/** Matches a request to a declared route once; later stages read the match from ctx.state. */
export class Router {
  private compiled: Array<{ route: RegisteredRoute; test: MatchFunction<Record<string, string>> }> | null = null;

  constructor(private readonly table: RouteTable) {}

  private routes() {
    this.compiled ??= this.table.list().map((route) => ({
      route,
      test: match<Record<string, string>>(route.path, { decode: decodeURIComponent, sensitive: false, trailing: true }),
    }));
    return this.compiled;
  }

  find(method: string, path: string): MatchOutcome {
    const m = method === 'HEAD' ? 'GET' : method;
    const allowed = new Set<string>();
    for (const { route, test } of this.routes()) {
      let result: ReturnType<typeof test>;
      try {
        result = test(path);
      } catch {
        continue; // undecodable percent-encoding: no route matches it
      }
      if (!result) continue;
      if (route.method === m) return { kind: 'found', match: { route, params: { ...result.params } } };
      allowed.add(route.method);
    }
    if (allowed.size) return { kind: 'method', allowed: [...allowed].sort() };
    return { kind: 'none' };
  }
}
