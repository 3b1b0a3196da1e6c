import { ConflictError, EVENTS_RESYNC, modelsOf, type ModelMap } from '../../kernel/sdk.js';
import { Role } from './models/role.js';
import { Tenant } from './models/tenant.js';
import { TENANTS_CHANGED } from './public.js';
import { BUILT_IN_ROLES } from './roles.js';

/**
 * Tenants. With MULTI_TENANT off everything is in tenant `default`. With it on, a signed-in caller's
 * tenant comes from their identity; public routes (sign-in, reset, guest reads) take it from the
 * request's hostname (an unknown hostname is the default tenant).
 */
export class TenantsService {
  private byHost: { map: Map<string, string>; at: number } | null = null;
  private publish: () => Promise<void> = async () => undefined;
  /** Counts the changes; a hostname map read across one is not kept. */
  private generation = 0;

  private readonly models: { Tenant: typeof Tenant; Role: typeof Role };

  constructor(
    models: ModelMap,
    readonly multiTenant: boolean,
  ) {
    this.models = modelsOf(models, { Tenant, Role });
  }

  /**
   * Hostname changes to and from every instance: a tenant created here is announced as TENANTS_CHANGED
   * (Redis pub/sub when configured), and any instance's announcement drops this instance's hostname map,
   * so a new tenant's hostname resolves everywhere at once rather than after the 30 s re-read.
   */
  connectEvents(events: {
    publish(name: string, payload: unknown): Promise<void>;
    subscribe(name: string, handler: (e: { payload: unknown }) => void): () => void;
  }): () => void {
    this.publish = () => events.publish(TENANTS_CHANGED, {});
    const offChanged = events.subscribe(TENANTS_CHANGED, () => this.forget());
    const offResync = events.subscribe(EVENTS_RESYNC, () => this.forget());
    return () => {
      offChanged();
      offResync();
    };
  }

  private forget(): void {
    this.generation++;
    this.byHost = null;
  }

  async fromHostname(hostname: string): Promise<string> {
    if (!this.multiTenant) return 'default';
    let byHost = this.byHost;
    if (!byHost || Date.now() - byHost.at > 30000) {
      const generation = this.generation;
      const map = new Map<string, string>();
      for (const t of await this.models.Tenant.findAll())
        for (const h of JSON.parse(t.hostnames) as string[]) map.set(h.toLowerCase(), t.id);
      byHost = { map, at: Date.now() };
      // A change announced while this read ran may not be in it: answer with it, but do not keep it.
      if (generation === this.generation) this.byHost = byHost;
    }
    return byHost.map.get(hostname.toLowerCase()) ?? 'default';
  }

  async create(input: { id: string; name: string; hostnames: string[] }) {
    if (await this.models.Tenant.findByPk(input.id)) throw new ConflictError(`Tenant '${input.id}' already exists`);
    const hostnames = input.hostnames.map((h) => h.toLowerCase());
    for (const t of await this.models.Tenant.findAll()) {
      const taken = (JSON.parse(t.hostnames) as string[]).find((h) => hostnames.includes(h));
      if (taken) throw new ConflictError(`Hostname '${taken}' already belongs to tenant '${t.id}'`);
    }
    await this.models.Tenant.create({ id: input.id, name: input.name, hostnames: JSON.stringify(hostnames), created_at: Date.now() });
    await this.models.Role.bulkCreate(
      Object.entries(BUILT_IN_ROLES).map(([name, r]) => ({
        tenant_id: input.id,
        name,
        description: r.description,
        permissions: JSON.stringify(r.permissions),
      })),
    );
    this.forget();
    // The tenant exists either way; without the announcement (Redis down) the others re-read within 30 s.
    await this.publish().catch(() => undefined);
    return { id: input.id, name: input.name, hostnames };
  }

  async list() {
    return (await this.models.Tenant.findAll({ order: [['created_at', 'ASC']] })).map((t) => ({
      id: t.id,
      name: t.name,
      hostnames: JSON.parse(t.hostnames) as string[],
    }));
  }
}
