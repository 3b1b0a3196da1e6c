import { isIP } from 'node:net';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionCapOptions {
  /** Most open connections from one client address; 0: no cap. */
  maxPerIp: number;
  /** Whether loopback clients (127.0.0.0/8, ::1) are counted too. */
  includeLoopback: boolean;
  /** Told once per refused connection (the address), for a log line. */
  onRefused?(address: string): void;
}

/** 127.0.0.0/8, ::1 and their IPv4-mapped form. */
export function isLoopback(address: string): boolean {
  const bare = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  return bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'));
}

/**
 * A cap on the open TCP connections (keep-alive, streams and WebSocket upgrades included) from one
 * client address: a connection beyond it is closed at once, before a byte of it is read. Loopback
 * clients (a proxy on this host, the cluster's proxy, local scripts and the test suite) are not counted
 * unless `includeLoopback`. Returns the live counts (for tests and metrics).
 */
export function capConnectionsPerIp(server: Server, options: ConnectionCapOptions): Map<string, number> {
  const open = new Map<string, number>();
  if (options.maxPerIp <= 0) return open;
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (!address || (!options.includeLoopback && isLoopback(address))) return;
    const count = open.get(address) ?? 0;
    if (count >= options.maxPerIp) {
      options.onRefused?.(address);
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
  return open;
}
