/**
 * Piscina task file: pure functions, plain data in and out, no kernel imports. Expected failures
 * come back as data ({ok: false, issues}) because error classes do not survive the thread boundary.
 * Each export is a task; the pool picks one by name.
 */
import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import bcrypt from 'bcryptjs';

/** argon2 is a native addon: loaded on first use, so starting (and stopping) a worker never loads it. */
let argon2Module: Promise<typeof import('argon2')> | null = null;
const loadArgon2 = () => (argon2Module ??= import('argon2'));

export interface TaskIssue {
  code: string;
  message: string;
}
export type TaskResult<T> = { ok: true; value: T } | { ok: false; issues: TaskIssue[] };

const ok = <T>(value: T): TaskResult<T> => ({ ok: true, value });
const fail = (code: string, message: string): TaskResult<never> => ({ ok: false, issues: [{ code, message }] });

export async function hashPassword(input: { password: string; rounds?: number }): Promise<TaskResult<string>> {
  if (typeof input?.password !== 'string' || input.password.length === 0)
    return fail('INVALID_INPUT', 'password must be a non-empty string');
  if (Buffer.byteLength(input.password) > 72) return fail('PASSWORD_TOO_LONG', 'bcrypt uses at most 72 bytes of a password');
  return ok(await bcrypt.hash(input.password, input.rounds ?? 12));
}

export async function verifyPassword(input: { password: string; hash: string }): Promise<TaskResult<boolean>> {
  if (typeof input?.password !== 'string' || typeof input?.hash !== 'string')
    return fail('INVALID_INPUT', 'password and hash must be strings');
  if (!/^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/.test(input.hash)) return fail('INVALID_HASH', 'hash is not a bcrypt hash');
  return ok(await bcrypt.compare(input.password, input.hash));
}

/** argon2id with 64 MiB of memory: for backup codes and other short secrets. */
export async function argon2Hash(input: { value: string }): Promise<TaskResult<string>> {
  if (typeof input?.value !== 'string' || input.value.length === 0) return fail('INVALID_INPUT', 'value must be a non-empty string');
  const argon2 = await loadArgon2();
  return ok(await argon2.hash(input.value, { type: argon2.argon2id, memoryCost: 64 * 1024, timeCost: 3, parallelism: 1 }));
}

export async function argon2Verify(input: { value: string; hash: string }): Promise<TaskResult<boolean>> {
  if (typeof input?.value !== 'string' || typeof input?.hash !== 'string') return fail('INVALID_INPUT', 'value and hash must be strings');
  if (!input.hash.startsWith('$argon2')) return fail('INVALID_HASH', 'hash is not an argon2 hash');
  const argon2 = await loadArgon2();
  try {
    return ok(await argon2.verify(input.hash, input.value));
  } catch (err) {
    return fail('INVALID_HASH', (err as Error).message);
  }
}

export function sha256Buffer(input: { data: Uint8Array | ArrayBuffer }): TaskResult<string> {
  if (!(input?.data instanceof Uint8Array) && !(input?.data instanceof ArrayBuffer)) return fail('INVALID_INPUT', 'data must be bytes');
  const bytes = input.data instanceof ArrayBuffer ? new Uint8Array(input.data) : input.data;
  return ok(createHash('sha256').update(bytes).digest('hex'));
}

/** Streams the file inside the worker, so a large file never passes through the event loop. */
/**
 * One read buffer per worker thread, reused for every file, so hashing a 1 GiB library leaves no garbage
 * behind (a read stream allocates a new buffer per chunk). A task that finds it taken (several tasks on
 * one thread) reads into its own.
 */
const HASH_CHUNK = 1024 * 1024;
let spareHashBuffer: Buffer | null = Buffer.allocUnsafe(HASH_CHUNK);

export async function sha256File(input: { path: string }): Promise<TaskResult<{ sha256: string; size: number }>> {
  if (typeof input?.path !== 'string') return fail('INVALID_INPUT', 'path must be a string');
  const hash = createHash('sha256');
  let size = 0;
  let file: FileHandle | undefined;
  let buffer: Buffer | undefined;
  try {
    file = await open(input.path, 'r');
    buffer = spareHashBuffer ?? Buffer.allocUnsafe(HASH_CHUNK);
    if (buffer === spareHashBuffer) spareHashBuffer = null;
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, HASH_CHUNK, null);
      if (bytesRead === 0) break;
      size += bytesRead;
      hash.update(buffer.subarray(0, bytesRead));
    }
    return ok({ sha256: hash.digest('hex'), size });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return fail(
      err.code === 'ENOENT' ? 'FILE_NOT_FOUND' : err.code === 'EISDIR' ? 'NOT_A_FILE' : 'READ_FAILED',
      `cannot read ${input.path}: ${err.code ?? err.message}`,
    );
  } finally {
    await file?.close().catch(() => undefined);
    if (buffer && !spareHashBuffer) spareHashBuffer = buffer;
  }
}
