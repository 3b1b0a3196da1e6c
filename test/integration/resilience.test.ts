import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'koa';
import type { RedisClientType } from 'redis';
import { rateLimiter } from '../../kernel/http/rate-limit.js';
import { createLogger } from '../../kernel/logger.js';
import { closeRedis, createRedisClient } from '../../kernel/redis.js';
import { fixturePlugin, get, startTestKernel } from '../helpers/kernel.js';
import { REDIS_URL, uniqueName } from '../helpers/services.js';

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** Settles within `ms`, or says it did not. */
async function within<T>(promise: Promise<T>, ms: number): Promise<'settled' | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  const outcome = await Promise.race([
    promise.then(
      () => 'settled' as const,
      () => 'settled' as const,
    ),
    timeout,
  ]);
  clearTimeout(timer);
  return outcome;
}

describe('resilience', function () {
  this.timeout(60000);

  describe('with Redis', function () {
    before(function () {
      if (!REDIS_URL) {
        console.log('      CMS_TEST_REDIS_URL is not set: Redis variant skipped');
        this.skip();
      }
    });

    it('a limiter used before Redis connected does not keep counting in memory afterwards', async function () {
      const prefix = uniqueName('rlswitch');
      const logger = createLogger('silent');
      const client = createRedisClient(REDIS_URL);
      await client.connect();
      const optionsA = {
        enabled: true,
        points: 600,
        durationSeconds: 60,
        prefix,
        logger,
        redis: null as RedisClientType | null,
        secrets: {},
      };
      const optionsB = { ...optionsA };
      const [a, b] = [rateLimiter(optionsA), rateLimiter(optionsB)];
      const route = { path: '/api/open/limited', rateLimit: { points: 2, durationSeconds: 60 } };
      const hit = async (mw: ReturnType<typeof rateLimiter>) => {
        const ctx = { path: '/api/open/limited', ip: '203.0.113.9', state: { match: { route } } } as unknown as Context;
        try {
          await mw(ctx, async () => undefined);
          return 200;
        } catch (err) {
          return (err as { status: number }).status;
        }
      };
      try {
        expect(await hit(a), 'during boot, memory').to.equal(200);
        optionsA.redis = client;
        optionsB.redis = client;
        expect(await hit(a)).to.equal(200);
        expect(await hit(b)).to.equal(200);
        expect(await hit(b), 'the shared Redis counter is used up').to.equal(429);
        expect(await hit(a)).to.equal(429);
      } finally {
        await closeRedis(client);
      }
    });

    it('keeps answering while Redis is down, reports it, and still shuts down', async function () {
      const port = await freePort();
      const redis: ChildProcess = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      try {
        const url = `redis://127.0.0.1:${port}`;
        for (let i = 0; i < 100; i++) {
          const probe = createRedisClient(url);
          const up = await probe.connect().then(
            () => true,
            () => false,
          );
          await closeRedis(probe);
          if (up) break;
          await sleep(50);
        }
        const t = await startTestKernel({
          plugins: [fixturePlugin('test-identity'), fixturePlugin('test-echo')],
          config: { redis: { url, prefix: uniqueName('outage') }, rateLimit: { enabled: true }, http: { shutdownTimeoutMs: 2000 } },
        });
        try {
          expect((await t.request('/api/open/limited')).status).to.equal(200);
          redis.kill('SIGKILL');
          await new Promise((resolve) => redis.once('exit', resolve));
          for (let i = 0; i < 3; i++) {
            const res = await Promise.race([t.request('/api/open/stable'), sleep(5000).then(() => null)]);
            expect(res, 'request hung while Redis was down').to.not.equal(null);
            expect(res!.status).to.equal(200);
          }
          const limited = await t.request('/api/open/limited');
          expect(limited.status, 'insurance limiter keeps limiting').to.equal(200);
          await t.kernel.cache!.set('collections', 'k', 1).catch(() => undefined);
          const health = (await (await t.request('/api/system/health', { identity: 'admin' })).json()).data;
          expect(health.status).to.equal('degraded');
          expect(health.checks.cache.status).to.equal('down');
        } finally {
          expect(await within(t.close(), 30000), 'close() with Redis down').to.equal('settled');
        }
      } finally {
        if (redis.exitCode === null && redis.signalCode === null) redis.kill('SIGKILL');
      }
    });
  });

  it('close() during boot stops the boot before the next plugin and closes what booted', async function () {
    const order = ((globalThis as any).__cmsCloseOrder ??= []) as string[];
    order.length = 0;
    const t = await startTestKernel({
      plugins: [fixturePlugin('test-echo'), fixturePlugin('test-lifecycle')],
      config: { plugins: { options: { 'test-lifecycle': { bootDelayMs: 800 } } } },
      noStart: true,
    });
    const starting = t.kernel.start().then(
      () => undefined,
      (err: Error) => err,
    );
    const deadline = Date.now() + 10000;
    // Close while test-lifecycle boots (its 800 ms delay), whatever other FULL-phase plugins boot before it.
    const lifecycleState = () => t.kernel.loader.describe().find((r) => r.id === 'test-lifecycle')?.state;
    while (lifecycleState() !== 'booting' && Date.now() < deadline) await sleep(10);
    expect(t.kernel.phase).to.equal('FULL');
    expect(lifecycleState()).to.equal('booting');
    const url = t.url;
    await t.close();
    const error = await starting;
    expect(error?.message).to.equal('Boot stopped: shutdown was requested');
    expect(order).to.deep.equal(['test-lifecycle', 'test-echo']);
    expect(t.kernel.phase).to.equal('IDLE');
    const history = t.kernel.loader.describe().map((r) => `${r.id}:${r.state}`);
    expect(history).to.include.members(['test-echo:closed', 'test-lifecycle:closed']);
    expect(
      await get(`${url}/api/health`).then(
        () => 'answered',
        () => 'refused',
      ),
    ).to.equal('refused');
  });
});
