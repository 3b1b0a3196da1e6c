import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';

export interface MailOptions {
  from: string;
  smtp?: { host: string; port: number; secure: boolean; user?: string; password?: string };
  outboxDir: string;
}

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/**
 * Outgoing mail: SMTP through nodemailer when a host is configured; otherwise each message is written
 * as an .eml file to the outbox folder (the README points operators there), so a fresh install can
 * still complete password resets and invitations.
 */
export class Mailer {
  private readonly transport: Transporter;

  constructor(private readonly options: MailOptions) {
    this.transport = options.smtp
      ? nodemailer.createTransport({
          host: options.smtp.host,
          port: options.smtp.port,
          secure: options.smtp.secure,
          auth: options.smtp.user ? { user: options.smtp.user, pass: options.smtp.password ?? '' } : undefined,
          connectionTimeout: 15000,
          greetingTimeout: 15000,
        })
      : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  }

  get mode(): 'smtp' | 'outbox' {
    return this.options.smtp ? 'smtp' : 'outbox';
  }

  async send(mail: Mail): Promise<{ messageId: string; file?: string }> {
    const info = await this.transport.sendMail({ from: this.options.from, to: mail.to, subject: mail.subject, text: mail.text });
    if (this.options.smtp) return { messageId: info.messageId };
    await mkdir(this.options.outboxDir, { recursive: true, mode: 0o700 });
    const file = join(this.options.outboxDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.eml`);
    await writeFile(file, (info as unknown as { message: Buffer }).message, { mode: 0o600 });
    return { messageId: info.messageId, file };
  }

  close(): void {
    this.transport.close();
  }
}
