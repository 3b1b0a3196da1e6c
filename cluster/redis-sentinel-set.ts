import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, openSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from 'redis';

export interface RedisNode {
  host: string;
  port: number;
}

export interface SentinelSetOptions {
  /** The name the sentinels monitor the master under (REDIS_SENTINEL_MASTER). Default `cmsmaster`. */
  masterName?: string;
  /** requirepass of the master and the replica (and masterauth, and the sentinels' auth-pass). */
  password?: string;
  /** requirepass of the sentinels themselves. */
  sentinelPassword?: string;
  /** How long a node must not answer before a sentinel thinks it down (default 1000 ms). */
  downAfterMs?: number;
  /** Sentinel's failover-timeout (default 3000 ms). */
  failoverTimeoutMs?: number;
}

export interface SentinelSet {
  masterName: string;
  /** The three sentinels, as REDIS_SENTINELS wants them: `127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3`. */
  sentinelsSetting: string;
  sentinels: RedisNode[];
  /** The two data nodes, master first as started. */
  nodes: RedisNode[];
  /** Where the configuration files and logs are (removed by stop()). */
  dir: string;
  /** The master's address as the sentinels give it now. */
  currentMaster(): Promise<RedisNode>;
  /** Kills the node that is the master now with SIGKILL (no goodbye to anyone); returns its address. */
  killMaster(): Promise<RedisNode>;
  /** Waits (bounded) until the sentinels name a master other than `old` and it answers as master; returns it. */
  waitForNewMaster(old: RedisNode, timeoutMs?: number): Promise<RedisNode>;
  /** Stops every process (SIGKILL: nothing to keep) and removes the folder. */
  stop(): Promise<void>;
}

/** Whether Debian's redis-server and redis-sentinel can be run here; otherwise why not. */
export function sentinelBinaries(): { available: boolean; reason?: string } {
  for (const bin of ['redis-server', 'redis-sentinel']) {
    const probe = spawnSync(bin, ['--version'], { stdio: 'ignore' });
    if (probe.error || probe.status !== 0)
      return { available: false, reason: `${bin} is not installed (Debian packages redis-server and redis-sentinel)` };
  }
  return { available: true };
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const address = (node: RedisNode) => `redis://127.0.0.1:${node.port}`;

/** One command on a short-lived connection (no retries); throws when the node does not answer. */
async function ask(node: RedisNode, args: string[], password?: string): Promise<unknown> {
  const url = new URL(address(node));
  if (password) url.password = encodeURIComponent(password);
  const client = createClient({ url: url.toString(), socket: { connectTimeout: 2000, reconnectStrategy: false } });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.sendCommand(args);
  } finally {
    if (client.isOpen) client.destroy();
  }
}

/** Polls `check` every 100 ms until it holds (errors count as not yet), at most `timeoutMs`. */
async function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (err) {
      last = err;
    }
    await sleep(100);
  }
  throw new Error(`Redis Sentinel set: ${what} did not happen within ${timeoutMs} ms${last ? ` (${(last as Error).message})` : ''}`);
}

const infoField = (info: unknown, field: string) => new RegExp(`^${field}:(.*)$`, 'm').exec(String(info))?.[1]?.trim();

function sentinelConfig(
  o: Required<Omit<SentinelSetOptions, 'password' | 'sentinelPassword'>> & SentinelSetOptions,
  port: number,
  master: RedisNode,
  dir: string,
) {
  return [
    `port ${port}`,
    'bind 127.0.0.1',
    `dir ${dir}`,
    `sentinel monitor ${o.masterName} 127.0.0.1 ${master.port} 2`,
    `sentinel down-after-milliseconds ${o.masterName} ${o.downAfterMs}`,
    `sentinel failover-timeout ${o.masterName} ${o.failoverTimeoutMs}`,
    `sentinel parallel-syncs ${o.masterName} 1`,
    ...(o.password ? [`sentinel auth-pass ${o.masterName} ${o.password}`] : []),
    ...(o.sentinelPassword ? [`requirepass ${o.sentinelPassword}`] : []),
    '',
  ].join('\n');
}

/**
 * A Redis master, one replica (`--replicaof`) and three sentinels (quorum 2) as child processes on free
 * 127.0.0.1 ports, in a temporary folder, with a short down-after (1 s) and failover timeout (3 s) so a
 * failover takes seconds. Resolves once the replica is in sync and every sentinel knows the replica and
 * the two other sentinels (before that a failover could not happen).
 */
export async function startRedisSentinelSet(options: SentinelSetOptions = {}): Promise<SentinelSet> {
  const o = { masterName: 'cmsmaster', downAfterMs: 1000, failoverTimeoutMs: 3000, ...options };
  for (const secret of [o.password, o.sentinelPassword])
    if (secret !== undefined && !/^[\x21-\x7e]+$/.test(secret.replace(/["'\\]/g, ' ')))
      throw new Error('Redis Sentinel set: passwords must be printable ASCII without spaces or quotes');
  const dir = mkdtempSync(join(tmpdir(), 'cms-redis-sentinel-'));
  const processes = new Map<number, ChildProcess>();
  const run = (bin: string, args: string[], port: number) => {
    const log = openSync(join(dir, `${bin}-${port}.log`), 'a');
    const child = spawn(bin, args, { stdio: ['ignore', log, log] });
    closeSync(log);
    child.on('error', () => undefined);
    processes.set(port, child);
  };
  const stop = async () => {
    await Promise.all(
      [...processes.values()].map(async (child) => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
          await once(child, 'exit');
        }
      }),
    );
    processes.clear();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const nodes: RedisNode[] = [];
    for (let i = 0; i < 2; i++) nodes.push({ host: '127.0.0.1', port: await freePort() });
    const auth = o.password ? ['--requirepass', o.password, '--masterauth', o.password] : [];
    const common = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...auth];
    run('redis-server', ['--port', String(nodes[0].port), ...common], nodes[0].port);
    run('redis-server', ['--port', String(nodes[1].port), ...common, '--replicaof', '127.0.0.1', String(nodes[0].port)], nodes[1].port);
    await until(
      'replica in sync',
      15000,
      async () => infoField(await ask(nodes[1], ['INFO', 'replication'], o.password), 'master_link_status') === 'up',
    );
    const sentinels: RedisNode[] = [];
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const file = join(dir, `sentinel-${port}.conf`);
      writeFileSync(file, sentinelConfig(o, port, nodes[0], dir));
      run('redis-sentinel', [file], port);
      sentinels.push({ host: '127.0.0.1', port });
    }
    for (const s of sentinels)
      await until(`sentinel ${s.port} sees the replica and the other sentinels`, 20000, async () => {
        const fields = (await ask(s, ['SENTINEL', 'MASTER', o.masterName], o.sentinelPassword)) as string[];
        const field = (name: string) => fields[fields.indexOf(name) + 1];
        return field('num-slaves') === '1' && field('num-other-sentinels') === '2';
      });
    const currentMaster = async (): Promise<RedisNode> => {
      for (const s of sentinels) {
        try {
          const [host, port] = (await ask(s, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', o.masterName], o.sentinelPassword)) as string[];
          return { host, port: Number(port) };
        } catch {
          // the next sentinel
        }
      }
      throw new Error('no sentinel answers');
    };
    return {
      masterName: o.masterName,
      sentinelsSetting: sentinels.map((s) => `${s.host}:${s.port}`).join(','),
      sentinels,
      nodes,
      dir,
      currentMaster,
      async killMaster() {
        const master = await currentMaster();
        const child = processes.get(master.port);
        if (!child) throw new Error(`no process of this set listens on ${master.port}`);
        child.kill('SIGKILL');
        await once(child, 'exit');
        return master;
      },
      async waitForNewMaster(old, timeoutMs = 30000) {
        let found: RedisNode | undefined;
        await until('failover to the replica', timeoutMs, async () => {
          const now = await currentMaster();
          if (now.port === old.port) return false;
          if (infoField(await ask(now, ['INFO', 'replication'], o.password), 'role') !== 'master') return false;
          found = now;
          return true;
        });
        return found!;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
