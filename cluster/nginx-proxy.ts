import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PROJECT_ROOT } from '../kernel/version.js';

/** The configuration the deployment guide shows (docs/guides/deploying-several-instances.md), verbatim. */
export const NGINX_TEMPLATE = join(PROJECT_ROOT, 'cluster', 'nginx', 'cms.conf.template');

export interface NginxUpstream {
  url: string;
  /** Last readiness answer (GET /api/health/ready = 200). */
  ready: boolean;
}

/** Counted from nginx's access log (one line per request). */
export interface NginxStats {
  requests: number;
  /** WebSocket upgrades answered 101 through nginx. */
  upgrades: number;
  /** Requests nginx passed to more than one instance (proxy_next_upstream). */
  retried: number;
  /** Requests answered 502 or 504 (no instance took them). */
  gatewayErrors: number;
}

export interface NginxProxy {
  kind: 'nginx';
  url: string;
  port: number;
  /** The master process (its workers are its children). */
  pid: number;
  /** Where nginx.conf, cms.conf (the template filled in), error.log and access.log are. */
  dir: string;
  upstreams: NginxUpstream[];
  /** Reloads done so far (one per change of the set of ready instances). */
  reloads: number;
  /** Master and worker pids now (for CPU figures). */
  pids(): number[];
  counts(): NginxStats;
  /** Replaces the instance list; readiness is checked again at once. */
  setUpstreams(urls: string[]): void;
  /** Checks readiness now and, when the set of ready instances changed, reloads nginx and waits until it took effect. */
  checkNow(): Promise<void>;
  close(): Promise<void>;
}

export interface NginxOptions {
  upstreams: string[];
  /** 0 picks a free port. */
  port?: number;
  /** Directory for the configuration, logs and temp files (created; the caller removes it). */
  dir: string;
  /** How often readiness is polled (ms). */
  checkIntervalMs?: number;
  /** nginx worker processes (default 1: the instances and the load share this machine's cores). */
  workers?: number;
}

/** The nginx binary (PATH, then /usr/sbin), or null when nginx is not installed. */
export function findNginx(): string | null {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  for (const dir of dirs) {
    const file = join(dir, 'nginx');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The template with its two parts filled in: the instances' `server` lines and the `listen` line. */
export function renderCmsConf(servers: string[], listen: string): string {
  return readFileSync(NGINX_TEMPLATE, 'utf8').replace('${CMS_INSTANCES}', servers.join('\n    ')).replace('${CMS_LISTEN}', listen);
}

const serverLines = (upstreams: NginxUpstream[], dir: string): string[] => {
  if (!upstreams.length) return [`server unix:${join(dir, 'no-instance.sock')} down;`];
  // Only ready instances get traffic while any is (as a load balancer with readiness checks); none ready: all.
  const anyReady = upstreams.some((u) => u.ready);
  return upstreams.map((u) => `server ${new URL(u.url).host} max_fails=1 fail_timeout=2s${anyReady && !u.ready ? ' down' : ''};`);
};

/** Answers the generation the running configuration carries (its control socket), or null. */
function generation(socketPath: string): Promise<number | null> {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/generation', agent: false, timeout: 2000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(Number(body)));
      res.on('error', () => resolve(null));
    });
    req.on('error', () => resolve(null));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

interface Files {
  dir: string;
  port: number;
  workers: number;
}

/** The harness's own nginx.conf around the template: paths in the run's folder, the access log, a control socket. */
function writeConfig(f: Files, upstreams: NginxUpstream[], gen: number): void {
  writeFileSync(join(f.dir, 'cms.conf'), renderCmsConf(serverLines(upstreams, f.dir), `listen 127.0.0.1:${f.port};`));
  const tmp = (name: string) => `${name}_temp_path ${join(f.dir, 'tmp', name)};`;
  writeFileSync(
    join(f.dir, 'nginx.conf'),
    [
      `worker_processes ${f.workers};`,
      `error_log ${join(f.dir, 'error.log')} warn;`,
      `pid ${join(f.dir, 'nginx.pid')};`,
      'events { worker_connections 4096; }',
      'http {',
      `  log_format cms '$remote_addr "$request" $status up=$upstream_addr ups=$upstream_status';`,
      `  access_log ${join(f.dir, 'access.log')} cms;`,
      `  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(tmp).join('\n  ')}`,
      `  include ${join(f.dir, 'cms.conf')};`,
      `  server { listen unix:${join(f.dir, 'control.sock')}; access_log off; location = /generation { return 200 "${gen}"; } }`,
      '}',
      '',
    ].join('\n'),
  );
}

const readiness = async (u: NginxUpstream) => {
  try {
    const res = await fetch(`${u.url}/api/health/ready`, { signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    u.ready = res.status === 200;
  } catch {
    u.ready = false;
  }
};

/**
 * nginx (Debian's package) in front of the instances, run as a child process (`daemon off`, no root
 * needed) with cluster/nginx/cms.conf.template, the configuration the deployment guide shows. Open-source
 * nginx checks upstreams passively only, so this plays the part a deploy script or orchestrator plays in
 * production: it polls each instance's readiness and, when the set of ready instances changes, marks the
 * others `down` and reloads nginx (SIGHUP: new workers take new connections, old ones finish theirs).
 */
export async function startNginxProxy(options: NginxOptions): Promise<NginxProxy> {
  const bin = findNginx();
  if (!bin) throw new Error('nginx is not installed (apt-get install nginx)');
  mkdirSync(join(options.dir, 'tmp'), { recursive: true });
  const files: Files = { dir: options.dir, port: options.port || (await freePort()), workers: options.workers ?? 1 };
  const upstreams: NginxUpstream[] = options.upstreams.map((url) => ({ url, ready: false }));
  let gen = 1;
  let written = '';
  writeConfig(files, upstreams, gen);
  written = serverLines(upstreams, files.dir).join('\n');
  const controlSocket = join(options.dir, 'control.sock');
  const child: ChildProcess = spawn(bin, ['-p', options.dir, '-c', join(options.dir, 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const waitGeneration = async (want: number) => {
    for (const deadline = Date.now() + 15000; Date.now() < deadline; await sleep(20)) {
      if (exited()) break;
      if ((await generation(controlSocket)) === want) return;
    }
    const log = existsSync(join(options.dir, 'error.log')) ? readFileSync(join(options.dir, 'error.log'), 'utf8') : '';
    throw new Error(`nginx did not take configuration ${want}: ${stderr}${log.slice(-2000)}`);
  };
  try {
    await waitGeneration(gen);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }

  let applying: Promise<void> = Promise.resolve();
  /** Rewrites the configuration when the ready set changed, reloads, and waits for the new workers. */
  const apply = () => {
    applying = applying.then(async () => {
      const lines = serverLines(upstreams, files.dir).join('\n');
      if (lines === written || exited()) return;
      written = lines;
      writeConfig(files, upstreams, ++gen);
      proxy.reloads++;
      const old = childPids(child.pid!);
      child.kill('SIGHUP');
      await waitGeneration(gen);
      // The old workers close their idle client connections and exit once their requests are answered
      // (a WebSocket keeps one alive): wait for that, bounded, so the caller's next request meets a new one.
      for (const until = Date.now() + 2000; Date.now() < until; await sleep(20)) {
        const now = new Set(childPids(child.pid!));
        if (!old.some((pid) => now.has(pid))) break;
      }
    });
    return applying;
  };
  const checkNow = async () => {
    await Promise.all(upstreams.map(readiness));
    await apply();
  };
  const timer = setInterval(() => void checkNow().catch(() => undefined), options.checkIntervalMs ?? 200);
  timer.unref();

  const proxy: NginxProxy = {
    kind: 'nginx',
    url: `http://127.0.0.1:${files.port}`,
    port: files.port,
    pid: child.pid!,
    dir: options.dir,
    upstreams,
    reloads: 0,
    pids: () => [child.pid!, ...childPids(child.pid!)],
    counts() {
      const file = join(options.dir, 'access.log');
      const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
      const status = (l: string) => Number(/" (\d{3}) up=/.exec(l)?.[1]);
      return {
        requests: lines.length,
        upgrades: lines.filter((l) => status(l) === 101).length,
        retried: lines.filter((l) => /up=\S+, /.test(l)).length,
        gatewayErrors: lines.filter((l) => [502, 504].includes(status(l))).length,
      };
    },
    setUpstreams(urls) {
      upstreams.splice(0, upstreams.length, ...urls.map((url) => ({ url, ready: false })));
      void checkNow().catch(() => undefined);
    },
    checkNow,
    async close() {
      clearInterval(timer);
      await applying.catch(() => undefined);
      if (exited()) return;
      const done = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const force = setTimeout(() => child.kill('SIGKILL'), 10000);
      await done;
      clearTimeout(force);
    },
  };
  return proxy;
}
