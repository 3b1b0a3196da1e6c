import type { Logger } from '../../kernel/sdk.js';
import type { EmailTokensService } from './email-tokens-service.js';
import type { UsersService } from './users-service.js';
import type { User } from './models/user.js';

export interface MailerLike {
  send(mail: { to: string; subject: string; text: string }): Promise<unknown>;
}

const HOUR = 3600 * 1000;
export const RESET_TTL_MS = HOUR;
export const MAGIC_TTL_MS = 15 * 60 * 1000;

/**
 * The flows that send a link by mail. Reset and magic-link requests answer the same way whether or
 * not the email exists: the lookup and the mail happen after the response, off the request's timing.
 * Links are built from the configured public URL, never from the request's Host header (which would
 * let anyone send reset links pointing to their own site).
 */
export class EmailFlows {
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly users: UsersService,
    private readonly tokens: EmailTokensService,
    private readonly mailer: MailerLike,
    private readonly logger: Logger,
    private readonly publicUrl: string,
  ) {}

  private background(work: () => Promise<unknown>): void {
    const p = work()
      .catch((err) => this.logger.error({ err }, 'sending a link by mail failed'))
      .finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  /** Resolves when the mails queued so far have been handled (tests, shutdown). */
  async settled(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  /** `onIssued` hears of the link once it exists (the audit trail); never with its token. */
  requestPasswordReset(email: string, tenantId: string, onIssued?: (user: User) => void): void {
    this.mailLink(email, tenantId, { kind: 'reset', ttlMs: RESET_TTL_MS, onIssued }, (user, token) => ({
      subject: 'Reset your password',
      text: `Someone asked to reset the password of ${user.email}.\n\nSet a new password within an hour:\n${this.publicUrl}/reset-password?token=${token}\n\nIf it was not you, ignore this mail.\n`,
    }));
  }

  requestMagicLink(email: string, tenantId: string, onIssued?: (user: User) => void): void {
    this.mailLink(email, tenantId, { kind: 'magic', ttlMs: MAGIC_TTL_MS, onIssued }, (_user, token) => ({
      subject: 'Your sign-in link',
      text: `Sign in to ${this.publicUrl} within 15 minutes (the link works once):\n${this.publicUrl}/magic-link?token=${token}\n\nIf it was not you, ignore this mail.\n`,
    }));
  }

  /** In the background: a link for the account behind the email (none for an unknown or blocked one), mailed. */
  private mailLink(
    email: string,
    tenantId: string,
    link: { kind: 'reset' | 'magic'; ttlMs: number; onIssued?: (user: User) => void },
    mail: (user: User, token: string) => { subject: string; text: string },
  ): void {
    this.background(async () => {
      const user = await this.users.findByEmail(email, tenantId);
      if (!user || user.blocked) return;
      const { token } = await this.tokens.issue(link.kind, { email: user.email, userId: user.id, tenantId, ttlMs: link.ttlMs });
      link.onIssued?.(user);
      await this.mailer.send({ to: user.email, ...mail(user, token) });
    });
  }

  async invite(input: {
    email: string;
    role: string;
    expiresInHours: number;
    tenantId: string;
    createdBy: string | null;
    sendEmail: boolean;
  }) {
    const { token, row } = await this.tokens.issue('invite', {
      email: input.email,
      role: input.role,
      tenantId: input.tenantId,
      createdBy: input.createdBy,
      ttlMs: input.expiresInHours * HOUR,
    });
    if (input.sendEmail) {
      this.background(() =>
        this.mailer.send({
          to: row.email,
          subject: 'You are invited',
          text: `You are invited to ${this.publicUrl} as ${input.role}.\n\nCreate your account:\n${this.publicUrl}/register?token=${token}\n`,
        }),
      );
    }
    return { token, expiresAt: new Date(Number(row.expires_at)).toISOString() };
  }
}
