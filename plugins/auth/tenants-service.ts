import { ConflictError, type EventBus, type Followed, type PluginBootContext, type ModelMap, modelsOf } from '../../kernel/sdk.js';
import { Role } from './models/role.js';
import { Tenant } from './models/tenant.js';
import type { Tenant as TenantRow } from './models/tenant.js';
import { TENANTS_CHANGED } from './public.js';
import { BUILT_IN_ROLES } from './roles.js';

/** Every tenant's hostnames (lower-case) -> its id. */
async function readHostnames(Tenant: typeof TenantRow): Promise<Map<string, string>> {
  const map = new Map<string, string>();
  for (const t of await Tenant.findAll()) for (const h of JSON.parse(t.hostnames) as string[]) map.set(h.toLowerCase(), t.id);
  return map;
}

/**
 * Tenants. With MULTI_TENANT off everything is in tenant `default`. With it on, a signed-in caller's
 * tenant comes from their identity; public routes (sign-in, reset, guest reads) take it from the
 * request's hostname (an unknown hostname is the default tenant).
 */
export class TenantsService {
  /** hostname -> tenant id, followed across instances once boot connected it (`follow`). */
  private byHost: Followed<Map<string, string>> | null = null;
  private publish: () => Promise<void> = async () => undefined;

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
  follow(events: Pick<EventBus, 'publish'>, follow: PluginBootContext['follow']): void {
    this.publish = () => events.publish(TENANTS_CHANGED, {});
    this.byHost = follow({
      name: 'tenant hostnames',
      load: () => readHostnames(this.models.Tenant),
      on: [TENANTS_CHANGED],
      maxAgeMs: 30000,
      initial: new Map(),
    });
  }

  /**
   * fromHostname's answer when it needs no read (single tenant, or the hostnames held and fresh), else
   * undefined. `request.hostname` is read only with MULTI_TENANT on.
   */
  fromHostnameNow(request: { readonly hostname: string }): string | undefined {
    if (!this.multiTenant) return 'default';
    const byHost = this.byHost?.peek();
    return byHost ? (byHost.get(request.hostname.toLowerCase()) ?? 'default') : undefined;
  }

  async fromHostname(hostname: string): Promise<string> {
    if (!this.multiTenant) return 'default';
    const byHost = this.byHost ? await this.byHost.get() : await readHostnames(this.models.Tenant);
    return byHost.get(hostname.toLowerCase()) ?? 'default';
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
    this.byHost?.forget();
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
