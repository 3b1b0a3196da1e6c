import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpForwarder {
  /** 127.0.0.1 port that forwards to the target. */
  port: number;
  /** Drops every open connection and refuses new ones (the service looks down). */
  cut(): void;
  /** Accepts connections again. */
  restore(): void;
  close(): Promise<void>;
}

/**
 * A TCP forwarder on 127.0.0.1 in front of a service (MariaDB, Redis): the cluster harness can point
 * instances at it so a test cuts the service for them without stopping the shared server.
 */
export async function startTcpForwarder(target: { host: string; port: number }): Promise<TcpForwarder> {
  const sockets = new Set<Socket>();
  let open = true;
  const server: Server = createServer((client) => {
    if (!open) return void client.destroy();
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const cutAll = () => {
    for (const s of sockets) s.destroy();
    sockets.clear();
  };
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      open = false;
      cutAll();
    },
    restore() {
      open = true;
    },
    close() {
      open = false;
      cutAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
