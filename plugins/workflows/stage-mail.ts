import type { Logger } from '../../kernel/sdk.js';
import type { StageChangeEvent } from './public.js';
import type { WorkflowRecord } from './workflow-store.js';

/** The mail plugin's mailer, as far as stage mails use it. */
export interface MailerLike {
  send(mail: { to: string; subject: string; text: string }): Promise<unknown>;
}

/** A user as the auth plugin lists them (users.list). */
export interface ListedUser {
  _id: string;
  email: string;
  role: string;
  blocked?: boolean;
}

/** Users read per page while looking for recipients, pages at most, and recipients at most per stage change. */
const PAGE = 100;
const MAX_PAGES = 20;
const MAX_RECIPIENTS = 200;

export interface StageMailDeps {
  mailer: () => MailerLike | undefined;
  /** A page of the tenant's users (auth); undefined without the auth plugin. */
  users: (tenantId: string, page: number, limit: number) => Promise<{ items: ListedUser[]; total: number } | undefined>;
  /** The permissions of a role of the tenant (auth). */
  permissionsOf: (tenantId: string, role: string) => Promise<string[]>;
  logger: Logger;
}

/**
 * The mail of a stage change, to the users who may move the entry into the next stage (the stage after the new one):
 * administrators and the holders of that stage's `roles`, or, when it names none, administrators and the holders of a
 * role with content:write. Not to the user who moved it, nor to blocked users; none when the new stage is the last.
 * One mail per recipient (addresses are not shown to each other), sent after the move's answer with no transaction
 * held; a failure is logged and changes nothing.
 */
export class StageMail {
  constructor(private readonly deps: StageMailDeps) {}

  async announce(workflow: WorkflowRecord, event: StageChangeEvent): Promise<number> {
    const mailer = this.deps.mailer();
    const index = workflow.stages.findIndex((s) => s.name === event.stage);
    const next = workflow.stages[index + 1];
    if (!mailer || !next) return 0;
    const recipients = await this.recipients(event.tenantId, next.roles, event.userId);
    const title = String(event.entry.title ?? event.entry.name ?? event.entry.slug ?? event.entry._id);
    const subject = `Review: "${title.slice(0, 120)}" (${event.collection}) is in the stage ${event.stage}`;
    const text = [
      `The entry "${title}" of ${event.collection} moved from the stage "${event.previousStage}" to "${event.stage}".`,
      `You may move it on to the stage "${next.name}".`,
      '',
      `Entry id: ${event.entry._id}`,
    ].join('\n');
    let sent = 0;
    for (const to of recipients) {
      try {
        await mailer.send({ to, subject, text });
        sent++;
      } catch (err) {
        this.deps.logger.warn({ err, collection: event.collection }, 'a stage change mail was not sent');
        return sent; // the server is down or refusing: the others would fail the same way
      }
    }
    return sent;
  }

  private async recipients(tenantId: string, roles: string[] | undefined, actor: string | null): Promise<string[]> {
    const allowed = new Map<string, boolean>();
    const may = async (role: string) => {
      if (role === 'admin') return true;
      if (roles) return roles.includes(role);
      if (!allowed.has(role)) allowed.set(role, (await this.deps.permissionsOf(tenantId, role)).includes('content:write'));
      return allowed.get(role)!;
    };
    const out: string[] = [];
    for (let page = 1; page <= MAX_PAGES && out.length < MAX_RECIPIENTS; page++) {
      const listed = await this.deps.users(tenantId, page, PAGE);
      if (!listed) break;
      for (const u of listed.items) if (u._id !== actor && !u.blocked && u.email && (await may(u.role))) out.push(u.email);
      if (page * PAGE >= listed.total) break;
    }
    return out.slice(0, MAX_RECIPIENTS);
  }
}
