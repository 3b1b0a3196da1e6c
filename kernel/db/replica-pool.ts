import type { Sequelize } from 'sequelize';

/** The replica a pooled read connection was made to (`host:port`). */
const TARGET = Symbol('cms.replicaTarget');
/** The replicas that served when the connection was made (ReplicaPool's key then). */
const MADE_FOR = Symbol('cms.replicaSet');

interface ReadConfig {
  host?: string;
  port?: number | string;
}

interface Manager {
  config: { replication?: { read?: ReadConfig[] } };
  pool: { destroy(connection: unknown): void };
  _connect(config: ReadConfig): Promise<unknown>;
}

export const configTarget = (c: ReadConfig): string => `${c.host ?? ''}:${c.port ?? ''}`;

/** The replica a connection from Sequelize's pool reads (undefined for a primary connection). */
export function connectionTarget(connection: unknown): string | undefined {
  return connection && typeof connection === 'object' ? (connection as { [TARGET]?: string })[TARGET] : undefined;
}

/**
 * Steers Sequelize's read pool (replication) to the replicas that serve now: new read connections are made
 * only to those (Sequelize's pool takes the next of `replication.read` for each one it makes, so the list
 * is narrowed in place), and a pooled connection to a replica that stopped serving is destroyed when it is
 * acquired instead of being used. So is one made while another set of replicas served: after a replica comes
 * back, the pool is made again over all of them (else the connections made meanwhile would keep every read).
 */
export class ReplicaPool {
  private readonly manager: Manager;
  private readonly all: ReadConfig[];
  private current = '';

  constructor(
    sequelize: Sequelize,
    /** Called when making a connection to a replica failed on the connection itself (refused, timed out...). */
    onConnectFailure: (target: string, err: unknown) => void,
  ) {
    this.manager = sequelize.connectionManager as unknown as Manager;
    this.all = [...(this.manager.config.replication?.read ?? [])];
    this.current = this.all.map(configTarget).join(',');
    const connect = this.manager._connect.bind(this.manager);
    this.manager._connect = async (config) => {
      const target = this.all.includes(config) ? configTarget(config) : undefined;
      try {
        const connection = await connect(config);
        if (target && connection && typeof connection === 'object')
          Object.assign(connection, { [TARGET]: target, [MADE_FOR]: this.current });
        return connection;
      } catch (err) {
        if (target) onConnectFailure(target, err);
        throw err;
      }
    };
  }

  /** New read connections go to these replicas only (by `host:port`, in configuration order). */
  narrowTo(serving: ReadonlySet<string>): void {
    const key = this.all
      .map(configTarget)
      .filter((t) => serving.has(t))
      .join(',');
    if (key === this.current || !key) return;
    this.current = key;
    const replication = this.manager.config.replication!;
    replication.read = this.all.filter((c) => serving.has(configTarget(c)));
  }

  /** Whether a read connection was made for the replicas that serve now. */
  isCurrent(connection: unknown): boolean {
    return (connection as { [MADE_FOR]?: string })[MADE_FOR] === this.current;
  }

  /** Destroys a pooled connection (one to a replica that no longer serves). */
  discard(connection: unknown): void {
    try {
      this.manager.pool.destroy(connection);
    } catch {
      // Already gone from the pool.
    }
  }
}
