import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake HTTP service on loopback for tests: it keeps a record of every request (`log`, oldest first)
 * and answers through `handle`. start() listens on a free port, close() ends open connections too.
 */
export abstract class LoopbackServer<R extends { path: string }> {
  private server: Server | null = null;
  protected readonly log: R[] = [];

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** The recorded requests to `path`. */
  of(path: string): R[] {
    return this.log.filter((r) => r.path === path);
  }

  /** Forgets the recorded requests. */
  reset(): void {
    this.log.length = 0;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  protected abstract handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/** The whole body of a request. */
export async function requestBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
