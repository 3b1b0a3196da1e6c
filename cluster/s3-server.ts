import { rmSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

type S3rverConstructor = new (options: { address: string; port: number; directory: string; silent: boolean }) => {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
};

/** s3rver's built-in account. */
export const S3RVER_ACCOUNT = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface S3Server {
  endpoint: string;
  bucket: string;
  close(): Promise<void>;
}

/** An S3 protocol server (s3rver, a devDependency) on 127.0.0.1 with one bucket, in a temporary folder. */
export async function startS3Server(bucket = 'cms-cluster'): Promise<S3Server> {
  const S3rver = createRequire(import.meta.url)('s3rver') as S3rverConstructor;
  const directory = mkdtempSync(join(tmpdir(), 'cms-cluster-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3RVER_ACCOUNT });
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
  return {
    endpoint,
    bucket,
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
