import { expect } from 'chai';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createKernel, type Kernel } from '../../kernel/index.js';
import { createLogger } from '../../kernel/logger.js';
import { until } from '../helpers/until.js';
import { fixturePlugin, sqliteKernelConfig, get, slowCorePlugin, tempDir } from '../helpers/kernel.js';

/**
 * The 503s the lifecycle answers by design (a request before READY, while shutting down, or to a
 * plugin that has not booted yet) are not failures: an operator reading the log must not find them at
 * error level with stack traces, which would hide the real failures (a 500 stays at error level).
 */

type LogRecord = Record<string, any>;

/** A real kernel (SQLite, free port) whose pino logger writes into an array. */
function kernelWithLog(plugins: string[], options: Record<string, Record<string, unknown>> = {}) {
  const lines: string[] = [];
  const dataDir = tempDir();
  const config = sqliteKernelConfig(dataDir, {
    logLevel: 'debug',
    pool: { maxThreads: 1 },
    jobs: { enabled: false },
    plugins: { paths: plugins, disabled: ['setup'], options },
  });
  const kernel: Kernel = createKernel({ config, logger: createLogger('debug', { write: (line: string) => void lines.push(line) }) });
  const records = (): LogRecord[] => lines.map((l) => JSON.parse(l) as LogRecord);
  /** The log lines of one request (by its X-Request-Id), without the access line. */
  const ofRequest = (requestId: string | null) => records().filter((r) => r.requestId === requestId && r.msg !== 'request');
  return { kernel, records, ofRequest, dataDir };
}

/** An expected 503 shows at info, with its code and reason, and nothing at warn or above, no stack. */
function expectQuiet503(lines: LogRecord[], what: string): void {
  expect(
    lines.filter((r) => r.level === 'error' || r.level === 'warn' || r.level === 'fatal'),
    `${what}: warn/error lines`,
  ).to.deep.equal([]);
  expect(JSON.stringify(lines), `${what}: a stack trace in the log`).not.to.match(/"stack"|\n\s+at /);
  const refused = lines.filter((r) => r.code === 'SERVICE_UNAVAILABLE');
  expect(refused, `${what}: one info line for the refusal`).to.have.length(1);
  expect(refused[0]).to.include({ level: 'info', status: 503 });
  expect(refused[0]).not.to.have.property('err');
}

describe('logging of expected 503s (boot and shutdown) and of real failures', function () {
  this.timeout(60000);

  it('a request before READY and one to a plugin still booting are logged at info without a stack; a real 500 at error with its stack', async function () {
    const slow = slowCorePlugin(1200);
    const { kernel, ofRequest, records } = kernelWithLog([fixturePlugin('test-echo'), fixturePlugin('test-lifecycle'), slow], {
      'test-lifecycle': { bootDelayMs: 1500 },
    });
    const starting = kernel.start();
    try {
      // Before READY: the boot gate.
      await until(
        async () => (await get(`${kernel.url}/api/system/health`)).json().then((b: any) => (b.data.phase === 'CORE' ? true : undefined)),
        'phase CORE',
      );
      const early = await get(`${kernel.url}/api/open/stable`);
      expect(early.status).to.equal(503);
      expect((await early.json()).error).to.equal('SERVICE_UNAVAILABLE');
      expectQuiet503(ofRequest(early.headers.get('x-request-id')), 'before READY');
      // The health route itself answers 503 before READY.
      const health = await get(`${kernel.url}/api/health`);
      expect(health.status).to.equal(503);
      expectQuiet503(ofRequest(health.headers.get('x-request-id')), 'GET /api/health before READY');

      // READY, but the FULL-phase plugin has not booted yet: its own route answers 503.
      await until(async () => ((await get(`${kernel.url}/api/open/stable`)).status === 200 ? true : undefined), 'READY');
      const booting = await get(`${kernel.url}/api/lifecycle/state`);
      expect(booting.status).to.equal(503);
      expect((await booting.json()).message).to.include('test-lifecycle');
      expectQuiet503(ofRequest(booting.headers.get('x-request-id')), 'a plugin still booting');
      const refusal = ofRequest(booting.headers.get('x-request-id')).find((r) => r.code === 'SERVICE_UNAVAILABLE')!;
      expect(refusal.reason).to.include('test-lifecycle');

      await starting;
      // A real failure keeps its error line with the stack, under the request id.
      const boom = await get(`${kernel.url}/api/open/boom`);
      expect(boom.status).to.equal(500);
      const failed = ofRequest(boom.headers.get('x-request-id')).filter((r) => r.level === 'error');
      expect(failed, 'one error line for the 500').to.have.length(1);
      expect(failed[0]!.msg).to.equal('request failed');
      expect(failed[0]!.err.stack).to.be.a('string').and.to.contain('\n');
      // Nothing else in the whole boot was logged as an error.
      expect(records().filter((r) => r.level === 'error').length).to.equal(1);
    } finally {
      await starting.catch(() => undefined);
      await kernel.close();
    }
  });

  it('a request that arrives while the instance shuts down is logged at info without a stack', async function () {
    const { kernel, ofRequest, records } = kernelWithLog([fixturePlugin('test-echo')]);
    await kernel.start();
    const port = Number(new URL(kernel.url).port);
    // One keep-alive connection: a slow request in flight keeps it open while shutdown begins; the
    // second request on it then meets the stopping instance.
    const socket = connect({ host: '127.0.0.1', port });
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write('GET /api/open/slow?ms=2000 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: slow-request-1\r\n\r\n');
    await sleep(150);
    const closing = kernel.close();
    await sleep(50);
    socket.write('GET /api/open/stable HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: during-shutdown-1\r\n\r\n');
    await Promise.race([closed, sleep(10000)]);
    await closing;
    socket.destroy();
    const statuses = [...received.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
    expect(statuses, received).to.deep.equal([200, 503]);
    expect(received).to.contain('SERVICE_UNAVAILABLE');
    expectQuiet503(ofRequest('during-shutdown-1'), 'during shutdown');
    expect(
      records().filter((r) => r.level === 'error'),
      'error lines during a clean shutdown',
    ).to.deep.equal([]);
  });
});
