/**
 * The content-sync test rig: instance B in a child process (test/helpers/content-sync-instance.ts),
 * an API key of B, and a small HTTP proxy that can cut connections (to test resuming transfers).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import { DIST_ROOT } from '../../kernel/version.js';

const PASSWORD = 'correct horse battery';

export interface ChildInstance {
  url: string;
  dataDir: string;
  child: ChildProcess;
  output(): string;
  /** Signs in as the admin user: the session cookie. */
  signIn(): Promise<string>;
  /** Creates an API key of B's admin with these permissions: {id, key}. */
  apiKey(permissions: string[], name?: string): Promise<{ id: string; key: string }>;
  revoke(id: string): Promise<void>;
  /** A request as a test identity (x-test-identity). */
  as(identity: string, method: string, path: string, json?: unknown): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

export async function startChildInstance(env: Record<string, string> = {}): Promise<ChildInstance> {
  const child = spawn(process.execPath, [join(DIST_ROOT, 'test', 'helpers', 'content-sync-instance.js')], {
    env: { ...process.env, CS_ADMIN_PASSWORD: PASSWORD, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  const ready = await new Promise<{ url: string; dataDir: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`instance did not start:\n${out}`)), 60000);
    const check = () => {
      const m = /^ready (.+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(JSON.parse(m[1]!));
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`instance exited (${code}):\n${out}`));
    });
  });
  let cookie: string | null = null;
  const instance: ChildInstance = {
    ...ready,
    child,
    output: () => out,
    async signIn() {
      if (cookie) return cookie;
      const res = await fetch(`${ready.url}/api/user/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'content-sync-test' },
        body: JSON.stringify({ email: env.CS_ADMIN_EMAIL ?? 'sync-admin@example.com', password: PASSWORD }),
      });
      expect(res.status, await res.clone().text()).to.equal(200);
      cookie = res.headers
        .getSetCookie()
        .find((c) => c.startsWith('session='))!
        .split(';')[0]!;
      return cookie;
    },
    async apiKey(permissions, name = 'content sync') {
      const res = await fetch(`${ready.url}/api/api-keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: await instance.signIn(), 'user-agent': 'content-sync-test' },
        body: JSON.stringify({ name, permissions }),
      });
      const body: any = await res.json();
      expect(res.status, JSON.stringify(body)).to.equal(201);
      return { id: body.data._id, key: body.data.key };
    },
    async revoke(id) {
      const res = await fetch(`${ready.url}/api/api-keys/${id}`, {
        method: 'DELETE',
        headers: { cookie: await instance.signIn(), 'user-agent': 'content-sync-test' },
      });
      expect(res.status).to.equal(200);
    },
    async as(identity, method, path, json) {
      const res = await fetch(`${ready.url}${path}`, {
        method,
        headers: { 'x-test-identity': identity, ...(json !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: json !== undefined ? JSON.stringify(json) : undefined,
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15000);
      await exited;
      clearTimeout(timer);
    },
  };
  return instance;
}

export interface CuttingProxy {
  url: string;
  /** Requests seen, as `METHOD path`. */
  seen: string[];
  /**
   * Cuts the next request matching `method` and `path` (a RegExp), after letting `skip` of them pass
   * (default 0): `request` destroys the client's
   * socket before forwarding; `response` forwards and destroys it after `afterBytes` of the response body.
   */
  cutNext(method: string, path: RegExp, how: { at: 'request' } | { at: 'response'; afterBytes: number }, skip?: number): void;
  cuts: number;
  close(): Promise<void>;
}

/** A forwarding HTTP proxy in front of `target` that cuts chosen connections once each. */
export async function startCuttingProxy(target: string): Promise<CuttingProxy> {
  const to = new URL(target);
  const rules: Array<{ method: string; path: RegExp; how: { at: 'request' } | { at: 'response'; afterBytes: number }; skip: number }> = [];
  const proxy: CuttingProxy = {
    url: '',
    seen: [],
    cuts: 0,
    cutNext(method, path, how, skip = 0) {
      rules.push({ method, path, how, skip });
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    proxy.seen.push(`${req.method} ${req.url}`);
    const index = rules.findIndex((r) => r.method === req.method && r.path.test(req.url ?? ''));
    let rule = index >= 0 ? rules[index] : undefined;
    if (rule && rule.skip > 0) {
      rule.skip--;
      rule = undefined;
    } else if (rule) rules.splice(index, 1);
    if (rule?.how.at === 'request') {
      proxy.cuts++;
      req.socket.destroy();
      return;
    }
    const upstream = httpRequest(
      { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: { ...req.headers, host: to.host } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        let sent = 0;
        up.on('data', (chunk: Buffer) => {
          if (rule?.how.at === 'response' && sent + chunk.length > rule.how.afterBytes) {
            res.write(chunk.subarray(0, Math.max(0, rule.how.afterBytes - sent)));
            proxy.cuts++;
            up.destroy();
            // Flush what was written, then drop the connection mid-body.
            setTimeout(() => res.socket?.destroy(), 20);
            return;
          }
          sent += chunk.length;
          res.write(chunk);
        });
        up.on('end', () => res.end());
      },
    );
    upstream.on('error', () => res.socket?.destroy());
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
