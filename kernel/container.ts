import { createContainer, InjectionMode, type AwilixContainer, type Resolver } from 'awilix';
import { BootError } from './errors.js';

/**
 * One strict Awilix container for the process. Awilix overwrites a key silently, so every
 * registration goes through `register`, which refuses a key that is already taken and names both
 * owners. Application code never imports the container: services receive their dependencies.
 */
export class KernelContainer {
  readonly awilix: AwilixContainer;
  private readonly owners = new Map<string, string>();

  constructor() {
    this.awilix = createContainer({ injectionMode: InjectionMode.PROXY, strict: true });
  }

  register(owner: string, key: string, resolver: Resolver<unknown>): void {
    const first = this.owners.get(key);
    if (first !== undefined) {
      throw new BootError(`Container key '${key}' registered by plugin '${owner}' is already registered by plugin '${first}'`);
    }
    this.owners.set(key, owner);
    this.awilix.register(key, resolver);
  }

  ownerOf(key: string): string | undefined {
    return this.owners.get(key);
  }

  keysOwnedBy(owner: string): string[] {
    return [...this.owners].filter(([, o]) => o === owner).map(([k]) => k);
  }

  resolve<T = unknown>(key: string): T {
    return this.awilix.resolve<T>(key);
  }

  /** A request scope: plugins' scoped services see currentUser, tenantId and requestId. */
  createScope(): AwilixContainer {
    return this.awilix.createScope();
  }
}
