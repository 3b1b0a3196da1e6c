import type { WorkflowStage } from './public.js';

/** A rename of a role (auth's ROLE_RENAMED): stages naming `from` name `to` instead. */
export interface RoleRename {
  from: string;
  to: string;
}

/** The role that may always move entries (isAdmin): what a stage whose every role is gone is left with. */
const ADMIN_ROLE = 'admin';

/**
 * The stages with the roles of a tenant as they are now: renamed roles renamed (in the order of `renames`), a role the
 * tenant no longer has dropped. A stage whose roles are all gone keeps only `admin`: before, its roles matched no one
 * but administrators, and a stage without `roles` would let anyone with content:write move entries into it. Answers
 * null when nothing changes.
 */
export function followRoles(stages: WorkflowStage[], known: (role: string) => boolean, renames: RoleRename[] = []): WorkflowStage[] | null {
  const rename = (role: string) => renames.reduce((r, { from, to }) => (r === from ? to : r), role);
  let changed = false;
  const next = stages.map((stage) => {
    if (!stage.roles) return stage;
    const roles = [...new Set(stage.roles.map(rename).filter(known))];
    if (roles.length === stage.roles.length && roles.every((r, i) => r === stage.roles![i])) return stage;
    changed = true;
    return { ...stage, roles: roles.length ? roles : [ADMIN_ROLE] };
  });
  return changed ? next : null;
}

/**
 * Runs the role follow-ups of this instance one after another. A tenant's follow-up already waiting is not queued
 * twice (a restore announces every role); the renames that came meanwhile are handed to it, in their order, so a
 * rename is applied before the names the tenant no longer has are dropped.
 */
export class RoleFollowQueue {
  private tail: Promise<void> = Promise.resolve();
  /** The tenants with a follow-up waiting, and the renames it will apply (drained by each run: bounded by the queue). */
  private readonly waiting = new Map<string, RoleRename[]>();

  constructor(
    private readonly apply: (tenantId: string, renames: RoleRename[]) => Promise<void>,
    private readonly failed: (err: unknown, tenantId: string) => void,
  ) {}

  add(tenantId: string, renamed?: RoleRename): Promise<void> {
    const renames = this.waiting.get(tenantId);
    if (renames) {
      if (renamed) renames.push(renamed);
      return this.tail;
    }
    this.waiting.set(tenantId, renamed ? [renamed] : []);
    this.tail = this.tail.then(async () => {
      const taken = this.waiting.get(tenantId) ?? [];
      this.waiting.delete(tenantId);
      await this.apply(tenantId, taken).catch((err: unknown) => this.failed(err, tenantId));
    });
    return this.tail;
  }

  /** Resolves when every follow-up queued so far has run. */
  idle(): Promise<void> {
    return this.tail;
  }
}
