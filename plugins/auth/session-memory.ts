import { EVENTS_RESYNC, type EventBus } from '../../kernel/sdk.js';
import { ROLE_CHANGED, SESSION_REVOKED } from './public.js';
import type { SessionSnapshot } from './sessions-service.js';

interface Remembered {
  snapshot: SessionSnapshot;
  verifiedAt: number;
  lastActiveAt: number;
}

/**
 * The in-process layers of the sessions (insertion-ordered map used as an LRU): idHash -> snapshot, when
 * it was verified, last activity. A revocation on any instance (SESSION_REVOKED) drops its entry; while
 * the other instances' events cannot arrive nothing here is trusted (the database decides), and once they
 * can again (EVENTS_RESYNC) everything remembered before goes: revocations published meanwhile were missed.
 */
export class SessionMemory {
  private readonly local = new Map<string, Remembered>();
  private publish: (idHash: string) => Promise<void> = async () => undefined;
  private publishRole: (tenantId: string, role: string) => Promise<void> = async () => undefined;
  private eventsLive: () => boolean = () => true;

  constructor(private readonly max: number) {}

  /** Wires revocations to the event bus; returns the unsubscribe function. */
  connect(events: Pick<EventBus, 'publish' | 'subscribe'> & { readonly connected?: boolean }): () => void {
    this.publish = (idHash) => events.publish(SESSION_REVOKED, { idHash });
    this.publishRole = (tenantId, role) => events.publish(ROLE_CHANGED, { tenantId, role });
    this.eventsLive = () => events.connected !== false;
    const offs = [
      events.subscribe(EVENTS_RESYNC, () => this.local.clear()),
      events.subscribe(SESSION_REVOKED, (event) => {
        const idHash = event.payload?.idHash;
        if (typeof idHash === 'string') this.local.delete(idHash);
      }),
      events.subscribe(ROLE_CHANGED, (event) => {
        const { tenantId, role } = event.payload ?? {};
        if (typeof tenantId === 'string' && typeof role === 'string') this.forgetRoleHere(tenantId, role);
      }),
    ];
    return () => offs.forEach((off) => off());
  }

  /** The remembered entry, unless the other instances' revocations cannot arrive now. */
  get(idHash: string): Remembered | undefined {
    return this.eventsLive() ? this.local.get(idHash) : undefined;
  }

  remember(snapshot: SessionSnapshot, lastActiveAt: number): void {
    this.local.delete(snapshot.idHash);
    this.local.set(snapshot.idHash, { snapshot, verifiedAt: Date.now(), lastActiveAt });
    if (this.local.size > this.max) this.local.delete(this.local.keys().next().value!);
  }

  /** Drops the entry here, and announces it to every other instance. */
  async drop(idHash: string, onError: (err: unknown) => void): Promise<void> {
    this.local.delete(idHash);
    await this.publish(idHash).catch(onError);
  }

  /** Drops every snapshot of the role here, and announces it to every other instance (ROLE_CHANGED). */
  async dropRole(tenantId: string, role: string, onError: (err: unknown) => void): Promise<void> {
    this.forgetRoleHere(tenantId, role);
    await this.publishRole(tenantId, role).catch(onError);
  }

  private forgetRoleHere(tenantId: string, role: string): void {
    for (const [idHash, { snapshot }] of this.local)
      if (snapshot.tenantId === tenantId && snapshot.role === role) this.local.delete(idHash);
  }

  forgetHere(idHash: string): void {
    this.local.delete(idHash);
  }

  get size(): number {
    return this.local.size;
  }
}
