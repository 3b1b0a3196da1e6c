import { rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tempDir } from './kernel.js';

/** The slice of s3rver 3's API the tests use (the package ships no types). */
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  httpServer: Server;
}
type S3rverConstructor = new (options: {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
  resetOnClose?: boolean;
}) => S3rverInstance;

/** s3rver's built-in account. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface S3rverServer {
  endpoint: string;
  directory: string;
  /** Multipart uploads started (POST ?uploads) and parts sent (PUT ?partNumber=). */
  stats: { multipartUploads: number; parts: number };
  close(): Promise<void>;
}

/**
 * A real S3 protocol server on 127.0.0.1 (a free port, a temporary folder). s3rver checks that the
 * access key id exists but does not verify SigV4 signatures, and writes objects in place (no atomic
 * replace): tests of wrong credentials use an unknown key id.
 */
export async function startS3rver(): Promise<S3rverServer> {
  const S3rver = createRequire(import.meta.url)('s3rver') as S3rverConstructor;
  const directory = tempDir('cms-s3rver-');
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true });
  const { port } = await server.run();
  const stats = { multipartUploads: 0, parts: 0 };
  server.httpServer.prependListener('request', (req) => {
    const url = new URL(req.url ?? '/', 'http://s3.test');
    if (req.method === 'POST' && url.searchParams.has('uploads')) stats.multipartUploads++;
    if (req.method === 'PUT' && url.searchParams.has('partNumber')) stats.parts++;
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    directory,
    stats,
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
