/** Figures of one route (method + template) since the instance started. */
export interface RouteFigures {
  method: string;
  route: string;
  count: number;
  status2xx: number;
  status3xx: number;
  status4xx: number;
  status5xx: number;
  rateLimited: number;
  totalMs: number;
  maxMs: number;
}

/** What an observer of HttpMetrics hears about each answered request. */
export type RequestObserver = (method: string, route: string, status: number) => void;

export interface HttpMetricsSnapshot {
  since: string;
  totals: Omit<RouteFigures, 'method' | 'route' | 'maxMs'> & { errorRate: number };
  routes: Array<RouteFigures & { avgMs: number; errorRate: number }>;
}

/**
 * Request counters of this instance (the container key `httpMetrics`), kept by route template so a
 * token in a path never becomes a key; requests that matched no route count under `(no route)`. The
 * dashboard and the Prometheus endpoint read them.
 */
export class HttpMetrics {
  private readonly since = new Date().toISOString();
  private readonly byMethod = new Map<string, Map<string, RouteFigures>>();
  private readonly observers = new Set<RequestObserver>();

  /** Calls `observer` after each recorded request (synchronously: it must be cheap); returns the unsubscribe function. */
  observe(observer: RequestObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  record(method: string, route: string, status: number, ms: number): void {
    // By method, then route template (no key string made per request; the parser knows a bounded set of methods).
    let routes = this.byMethod.get(method);
    if (!routes) this.byMethod.set(method, (routes = new Map()));
    let f = routes.get(route);
    if (!f) {
      f = { method, route, count: 0, status2xx: 0, status3xx: 0, status4xx: 0, status5xx: 0, rateLimited: 0, totalMs: 0, maxMs: 0 };
      routes.set(route, f);
    }
    f.count++;
    if (status >= 500) f.status5xx++;
    else if (status >= 400) f.status4xx++;
    else if (status >= 300) f.status3xx++;
    else f.status2xx++;
    if (status === 429) f.rateLimited++;
    f.totalMs += ms;
    if (ms > f.maxMs) f.maxMs = ms;
    for (const observer of this.observers) {
      try {
        observer(method, route, status);
      } catch {
        // An observer's failure never fails a request.
      }
    }
  }

  snapshot(): HttpMetricsSnapshot {
    const routes = [...this.byMethod.values()]
      .flatMap((routes) => [...routes.values()])
      .map((f) => ({
        ...f,
        totalMs: Math.round(f.totalMs),
        maxMs: Math.round(f.maxMs),
        avgMs: f.count ? Math.round((f.totalMs / f.count) * 100) / 100 : 0,
        errorRate: f.count ? (f.status4xx + f.status5xx) / f.count : 0,
      }));
    const totals = { count: 0, status2xx: 0, status3xx: 0, status4xx: 0, status5xx: 0, rateLimited: 0, totalMs: 0 };
    for (const r of routes) for (const k of Object.keys(totals) as Array<keyof typeof totals>) totals[k] += r[k];
    return {
      since: this.since,
      totals: { ...totals, errorRate: totals.count ? (totals.status4xx + totals.status5xx) / totals.count : 0 },
      routes: routes.sort((a, b) => b.count - a.count),
    };
  }
}
