/** What the cluster tests share: JSON calls with a session cookie, sign-in, and polling every instance. */
import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { findNginx, type NginxProxy } from '../../cluster/nginx-proxy.js';
import type { Cluster } from '../../cluster/start-cluster.js';
import { MARIADB_URL, REDIS_URL } from './services.js';

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

/** A request to `base` (the proxy or one instance): JSON in and out (text when the answer is not JSON), bounded at 30 s. */
export async function call(
  base: string,
  path: string,
  init: { method?: string; cookie?: string; json?: unknown; body?: RequestInit['body']; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.cookie) headers.cookie = init.cookie;
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? (init.json !== undefined || init.body ? 'POST' : 'GET'),
    headers,
    body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
    signal: AbortSignal.timeout(30000),
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body, headers: res.headers };
}

/** The answer's data, after checking its status. */
export const ok = (a: Answer, status = 200) => {
  expect(a.status, JSON.stringify(a.body)).to.equal(status);
  return a.body.data;
};

/** Signs in through `base` (at `host` when given, as a proxy names it in X-Forwarded-Host; fetch cannot set Host): the session cookie. */
export async function login(base: string, email: string, password: string, host?: string): Promise<string> {
  const res = await fetch(`${base}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(host ? { 'x-forwarded-host': host } : {}) },
    body: JSON.stringify({ email, password }),
  });
  const cookie = res.headers
    .getSetCookie()
    .find((c) => c.startsWith('session='))
    ?.split(';')[0];
  if (!cookie) throw new Error(`sign-in of ${email} failed: ${res.status} ${await res.text()}`);
  return cookie;
}

/** Polls every running instance until `done` holds for each; returns the ms it took (bounded by `ms`). */
export async function everyInstance(
  cluster: Cluster,
  what: string,
  done: (base: string) => Promise<boolean>,
  ms = 5000,
  pollMs = 20,
): Promise<number> {
  const started = Date.now();
  const pending = new Set(cluster.instances.filter((i) => i.running()).map((i) => i.url));
  while (pending.size) {
    for (const url of [...pending]) if (await done(url).catch(() => false)) pending.delete(url);
    if (!pending.size) break;
    if (Date.now() - started > ms) throw new Error(`${what}: not seen by ${[...pending].join(', ')} within ${ms} ms`);
    await sleep(pollMs);
  }
  return Date.now() - started;
}

/** In a `before` hook: skips the suite, saying so, unless MariaDB and Redis are configured; returns their URLs. */
export function requireClusterServices(ctx: Mocha.Context, what: string): { mariadbUrl: string; redisUrl: string } {
  if (!MARIADB_URL || !REDIS_URL) {
    console.log(`      CMS_TEST_MARIADB_URL or CMS_TEST_REDIS_URL is not set: ${what} skipped`);
    ctx.skip();
  }
  return { mariadbUrl: MARIADB_URL!, redisUrl: REDIS_URL! };
}

/** In a `before` hook: skips the suite, saying so, unless nginx is installed (Debian's package; `.ci/run` installs it). */
export function requireNginx(ctx: Mocha.Context, what: string): void {
  if (!findNginx()) {
    console.log(`      nginx is not installed (apt-get install nginx): ${what} skipped`);
    ctx.skip();
  }
}

/** The cluster's nginx (for its access-log counts and reloads). */
export function nginxOf(cluster: Cluster): NginxProxy {
  if (!('kind' in cluster.proxy)) throw new Error('this cluster runs the test proxy, not nginx');
  return cluster.proxy;
}

/**
 * Sends again (at most twice more) a request that got no answer at all because its connection closed under it:
 * nginx's old workers close their client connections on a reload, and a client that reused one just then sees
 * `fetch failed`. Browsers retry these by themselves; here only for idempotent requests, or writes carrying an
 * Idempotency-Key (the kernel answers a repeated key with the first answer, never a second write).
 */
export async function retryUnanswered<T>(send: () => Promise<T>, counter: { retries: number }): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (err) {
      if (attempt >= 2 || !(err instanceof TypeError) || err.message !== 'fetch failed') throw err;
      counter.retries++;
    }
  }
}
