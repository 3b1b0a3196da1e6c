import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { Transporter } from 'nodemailer';

const require = createRequire(import.meta.url);

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
  /** Made by the first message: nodemailer (several MB resident) is not loaded while no mail is sent. */
  private made: Transporter | null = null;

  constructor(private readonly options: MailOptions) {}

  private get transport(): Transporter {
    if (this.made) return this.made;
    const nodemailer = require('nodemailer') as typeof import('nodemailer');
    const { options } = this;
    return (this.made = options.smtp
      ? nodemailer.createTransport({
          host: options.smtp.host,
          port: options.smtp.port,
          secure: options.smtp.secure,
          auth: options.smtp.user ? { user: options.smtp.user, pass: options.smtp.password ?? '' } : undefined,
          connectionTimeout: 15000,
          greetingTimeout: 15000,
        })
      : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }));
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
    this.made?.close();
    this.made = null;
  }
}
