import { asValue, Lifetime, type AwilixContainer, type Resolver } from 'awilix';
import type { KernelContainer } from '../container.js';
import type { ContainerServices } from './route-table.js';
import type { Identity } from './identity.js';

type Registration = (Resolver<unknown> & { lifetime?: string; isLeakSafe?: boolean }) | null;

/**
 * A singleton (resolved against the root in a strict container) or a value (asValue: a leak-safe resolver that
 * takes no container; an alias takes one and resolves through the scope) is the same in every scope.
 */
const sameInEveryScope = (r: Registration): boolean =>
  !!r && (r.lifetime === Lifetime.SINGLETON || (!r.lifetime && r.isLeakSafe === true && r.resolve.length === 0));

const ownerOf = (target: object): RequestScope => (target as { owner: RequestScope }).owner;
const CRADLE: ProxyHandler<object> = {
  get: (target, key) => ownerOf(target).resolve(key),
  has: (target, key) => ownerOf(target).has(key),
  ownKeys: (target) => ownerOf(target).keys(),
  getOwnPropertyDescriptor: (target, key) => ownerOf(target).describe(key),
};

/**
 * A request's scope (currentUser, tenantId, requestId), made only when a request asks for a service that needs it.
 * Most requests (health, a cached list, a 304) read singletons only: those come from the root container, as a scope
 * would give them (the container is strict: a singleton is always resolved against the root), so no Awilix scope is
 * created and disposed for them. A transient or scoped service, or anything the scope lists, makes the scope then,
 * with the request's identity registered in it as soon as it is known.
 */
export class RequestScope {
  private real: AwilixContainer | null = null;
  private values: Record<string, Resolver<unknown>> | null = null;
  /** What handlers get as `scope` and resolvers read as `ctx.state.scope.cradle`. */
  readonly cradle: ContainerServices;

  constructor(private readonly root: KernelContainer) {
    // One handler for every request's proxy (the target names the scope): no closures made per request.
    this.cradle = new Proxy<object>({ owner: this }, CRADLE) as ContainerServices;
  }

  /** optional() asks whether a key is registered: the root's registrations and the request's values answer it. */
  describe(key: string | symbol): PropertyDescriptor | undefined {
    if (this.real || typeof key !== 'string') return Reflect.getOwnPropertyDescriptor(this.scope().cradle, key);
    return this.values?.[key] || this.root.awilix.getRegistration(key) ? { enumerable: true, configurable: true } : undefined;
  }

  has(key: string | symbol): boolean {
    return key in this.scope().cradle;
  }

  keys(): Array<string | symbol> {
    return Reflect.ownKeys(this.scope().cradle);
  }

  /** Registers the caller's identity (and the request id) for the request's scoped services. */
  identify(identity: Identity, requestId: string): void {
    this.values = { currentUser: asValue(identity), tenantId: asValue(identity.tenantId), requestId: asValue(requestId) };
    this.real?.register(this.values);
  }

  /** Whether an Awilix scope was made (only then is there anything to dispose). */
  get made(): boolean {
    return this.real !== null;
  }

  async dispose(): Promise<void> {
    if (this.real) await this.real.dispose();
  }

  resolve(key: string | symbol): unknown {
    if (this.real || typeof key !== 'string') return (this.scope().cradle as Record<string | symbol, unknown>)[key];
    const value = this.values?.[key];
    if (value) return value.resolve(this.root.awilix);
    if (sameInEveryScope(this.root.awilix.getRegistration(key))) return this.root.awilix.resolve(key);
    return (this.scope().cradle as Record<string, unknown>)[key];
  }

  private scope(): AwilixContainer {
    if (!this.real) {
      this.real = this.root.createScope();
      if (this.values) this.real.register(this.values);
    }
    return this.real;
  }
}
