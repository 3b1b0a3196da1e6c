import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';

/**
 * A stream of `size` random bytes made chunk by chunk (never held whole), and the SHA-256 of what it
 * produced, known once it ends.
 */
export function randomStream(size: number, chunkSize = 1024 * 1024): { stream: Readable; sha256: Promise<string> } {
  const hash = createHash('sha256');
  let resolveDigest!: (hex: string) => void;
  const sha256 = new Promise<string>((resolve) => (resolveDigest = resolve));
  async function* chunks() {
    for (let sent = 0; sent < size; sent += chunkSize) {
      const chunk = randomBytes(Math.min(chunkSize, size - sent));
      hash.update(chunk);
      yield chunk;
    }
    resolveDigest(hash.digest('hex'));
  }
  return { stream: Readable.from(chunks(), { objectMode: false }), sha256 };
}

export async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(Buffer.from(part));
  return Buffer.concat(parts);
}

export async function sha256Of(stream: Readable): Promise<{ hex: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const part of stream) {
    hash.update(part);
    size += part.length;
  }
  return { hex: hash.digest('hex'), size };
}
