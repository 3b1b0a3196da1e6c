/**
 * The caches a restore makes stale, per plan: the collection list caches of every tenant whose rows
 * it touched (cleared after the run), the cached sessions and tokens of users holding a role it
 * changed and the themes' branding of every tenant with themes (both dropped after the commit).
 * Settings are not cached (SettingsService reads the table).
 */
import { QueryTypes, type Transaction } from 'sequelize';
import type { DomainDeps } from './restore-types.js';
import { ROLE_CHANGED } from '../auth/public.js';
import { allRows, quote, tableExists, type Row } from './tables.js';

/** Caches dropped after the commit: sessions of users holding a changed role, the themes' branding per tenant. */
interface Pending {
  roles: Map<string, Set<string>>;
  themes: Set<string>;
}

const text = (v: unknown) => (v == null ? null : String(v));
/** What holders of a role act with: its permissions and rules (a row of a backup made before rules has none). */
const roleSignature = (r: Row) => JSON.stringify([r.description ?? null, text(r.permissions), text(r.rules)]);
const roleKey = (r: Row) => `${String(r.tenant_id)}\u0000${String(r.name)}`;

export class RestoreCaches {
  /** Tenants whose rows a restore touched, per plan: their collection list caches are cleared after it. */
  private readonly touched = new Map<string, Set<string>>();
  /** Caches to drop once the restore's transaction commits, per plan. */
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly d: DomainDeps) {}

  touch(planId: string, tenants: Iterable<string>): void {
    let set = this.touched.get(planId);
    if (!set) this.touched.set(planId, (set = new Set()));
    for (const t of tenants) set.add(t);
  }

  private pendingOf(planId: string, t: Transaction | undefined): Pending {
    let p = this.pending.get(planId);
    if (!p) {
      this.pending.set(planId, (p = { roles: new Map(), themes: new Set() }));
      if (t) t.afterCommit(() => this.dropCaches(planId));
    }
    return p;
  }

  /** Roles whose row the restore adds, removes or changes (per tenant): their users' cached sessions are dropped after commit. */
  async noteChangedRoles(planId: string, table: string, restored: Row[], t: Transaction | undefined): Promise<void> {
    const before = new Map((await allRows(this.d.sequelize(), table, t)).map((r) => [roleKey(r), r]));
    const after = new Map(restored.map((r) => [roleKey(r), r]));
    const p = this.pendingOf(planId, t);
    for (const k of new Set([...before.keys(), ...after.keys()])) {
      const a = before.get(k);
      const b = after.get(k);
      if (a && b && roleSignature(a) === roleSignature(b)) continue;
      const r = (a ?? b)!;
      const tenant = String(r.tenant_id);
      let names = p.roles.get(tenant);
      if (!names) p.roles.set(tenant, (names = new Set()));
      names.add(String(r.name));
    }
  }

  /** Every tenant with themes before or after the restore: its cached branding is dropped after commit. */
  async noteThemeTenants(planId: string, table: string, restored: Row[], t: Transaction | undefined): Promise<void> {
    const p = this.pendingOf(planId, t);
    for (const r of [...(await allRows(this.d.sequelize(), table, t)), ...restored])
      if (typeof r.tenant_id === 'string') p.themes.add(r.tenant_id);
  }

  /** After commit: every user holding a changed role re-reads it on the next request; the themes' branding is read again. Never throws. */
  private async dropCaches(planId: string): Promise<void> {
    const p = this.pending.get(planId);
    this.pending.delete(planId);
    if (!p) return;
    try {
      await this.forgetRoleUsers(p.roles);
    } catch (err) {
      this.d.logger()?.warn({ err, planId }, 'backup restore: dropping the cached sessions of changed roles failed');
    }
    const themes = this.d.themes();
    for (const tenant of p.themes) {
      try {
        await themes?.changed(tenant);
      } catch (err) {
        this.d.logger()?.warn({ err, planId, tenantId: tenant }, 'backup restore: dropping the themes cache failed');
      }
    }
  }

  private async forgetRoleUsers(roles: Map<string, Set<string>>): Promise<void> {
    const sequelize = this.d.sequelize();
    const sessions = this.d.sessions();
    const tokens = this.d.tokens();
    // Every instance keeps each role's rules (the auth plugin's followed copies): ROLE_CHANGED drops them.
    for (const [tenant, names] of roles) for (const role of names) await this.d.events().publish(ROLE_CHANGED, { tenantId: tenant, role });
    if (!(sessions || tokens) || !roles.size || !(await tableExists(sequelize, 'auth_users'))) return;
    for (const [tenant, names] of roles) {
      if (!names.size) continue;
      const users = await sequelize.query<{ id: unknown }>(
        `SELECT ${quote(sequelize, 'id')} AS id FROM ${quote(sequelize, 'auth_users')} WHERE ${quote(sequelize, 'tenant_id')} = :t AND ${quote(sequelize, 'role')} IN (:names)`,
        { type: QueryTypes.SELECT, replacements: { t: tenant, names: [...names] } },
      );
      for (const u of users) {
        await sessions?.forgetUser(String(u.id));
        await tokens?.userChanged(String(u.id));
      }
    }
  }

  /** Clears the collection list caches (every filtered/sorted variant, by prefix) of every tenant the restore touched. */
  async invalidateLists(planId: string, backupId: string): Promise<void> {
    this.pending.delete(planId);
    const entries = this.d.entries();
    const tenants = this.touched.get(planId) ?? new Set<string>();
    this.touched.delete(planId);
    tenants.add('default');
    if (!entries) return;
    const m = await this.d.service().manifest(backupId);
    for (const c of m.collections) {
      for (const tenant of tenants) await entries.invalidateLists(tenant, c.name).catch(() => undefined);
    }
  }
}
