import { join } from 'node:path';
import { Piscina } from 'piscina';
import type * as Tasks from '../workers/tasks.js';
import { DIST_ROOT } from './version.js';

type TaskName = 'hashPassword' | 'verifyPassword' | 'argon2Hash' | 'argon2Verify' | 'sha256Buffer' | 'sha256File';
type TaskFn<K extends TaskName> = (typeof Tasks)[K];
type Input<K extends TaskName> = Parameters<TaskFn<K>>[0];
type Output<K extends TaskName> = Awaited<ReturnType<TaskFn<K>>>;

export interface PoolStats {
  threads: number;
  maxThreads: number;
  queueSize: number;
  completed: number;
  utilization: number;
  runTimeMs: { mean: number; p99: number };
  waitTimeMs: { mean: number; p99: number };
}

const round = (n: number) => Math.round((Number.isFinite(n) ? n : 0) * 100) / 100;

/**
 * The one Piscina pool of the process, sized to the cores. The event loop never hashes passwords,
 * hashes backup codes or checksums files itself: it asks the pool. Results are TaskResult data.
 */
export class WorkerPool {
  private readonly piscina: Piscina;
  /** Tasks handed to piscina and not settled yet (queued or running): close() waits for them. */
  private inFlight = 0;
  private readonly settled = new Set<() => void>();

  constructor(options: { maxThreads: number; idleTimeoutMs: number; niceIncrement?: number; filename?: string }) {
    this.piscina = new Piscina({
      filename: options.filename ?? join(DIST_ROOT, 'workers', 'tasks.js'),
      maxThreads: options.maxThreads,
      // No thread at idle: the first task starts one (measured: see README "Benchmarks"), idleTimeout ends it again.
      minThreads: 0,
      idleTimeout: options.idleTimeoutMs,
      // A lower priority for the worker threads (piscina applies it with the optional @napi-rs/nice, per thread
      // on Linux): when hashing and requests want the same core, the event loop gets it (README "Benchmarks", 3).
      niceIncrement: options.niceIncrement ?? 0,
      // Piscina loads a task file with require() first; on Node 20.19+ that is require(esm), which has crashed
      // the whole process (a V8 fatal error in a worker) when racing a worker's start or end. Without it,
      // piscina falls back to import(), the ordinary ESM loader.
      // (Given explicitly, execArgv replaces the main thread's flags for the workers; none of those matter there.)
      execArgv: ['--no-experimental-require-module'],
    });
  }

  /**
   * Runs a named task from the task file; plugins with their own task files pass `filename`. An aborted
   * `signal` rejects with an AbortError: a queued task is dropped, a running one's worker is terminated.
   */
  run<K extends TaskName>(name: K, input: Input<K>): Promise<Output<K>>;
  run<T = unknown>(name: string, input: unknown, filename?: string, options?: { signal?: AbortSignal }): Promise<T>;
  run(name: string, input: unknown, filename?: string, options: { signal?: AbortSignal } = {}): Promise<unknown> {
    this.inFlight++;
    const task = this.piscina.run(input, {
      name,
      ...(filename ? { filename } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return task.finally(() => {
      this.inFlight--;
      for (const wake of this.settled) wake();
    });
  }

  hashPassword(password: string, rounds?: number) {
    return this.run('hashPassword', { password, rounds });
  }
  verifyPassword(password: string, hash: string) {
    return this.run('verifyPassword', { password, hash });
  }
  argon2Hash(value: string) {
    return this.run('argon2Hash', { value });
  }
  argon2Verify(value: string, hash: string) {
    return this.run('argon2Verify', { value, hash });
  }
  sha256(data: Uint8Array) {
    return this.run('sha256Buffer', { data });
  }
  sha256File(path: string) {
    return this.run('sha256File', { path });
  }

  stats(): PoolStats {
    const p = this.piscina;
    return {
      threads: p.threads.length,
      maxThreads: p.maxThreads,
      queueSize: p.queueSize,
      completed: p.completed,
      utilization: round(p.utilization),
      runTimeMs: { mean: round(p.histogram.runTime.average), p99: round(p.histogram.runTime.p99) },
      waitTimeMs: { mean: round(p.histogram.waitTime.average), p99: round(p.histogram.waitTime.p99) },
    };
  }

  /**
   * Lets every submitted task finish, queued ones included (bounded by `timeoutMs`), then terminates the
   * threads. piscina.close() alone counts a worker as done in the gap between two tasks, and destroy()
   * then terminates it in the middle of the next queued one: a native addon (argon2) whose work completes
   * on a terminated thread aborts the whole process ("terminate called after throwing Napi::Error").
   */
  async close(timeoutMs = 10000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.inFlight > 0 && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.settled.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, Math.max(1, deadline - Date.now()));
        timer.unref();
        this.settled.add(wake);
      });
    }
    const timer = new Promise<void>((resolve) => setTimeout(resolve, Math.max(1, deadline - Date.now())).unref());
    await Promise.race([this.piscina.close(), timer]);
    await this.piscina.destroy();
  }
}
