import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A mail the SMTP inbox received: first recipient, subject and plain text. */
export interface Received {
  to: string;
  subject: string;
  text: string;
}

/** A real SMTP server on loopback that keeps what it receives. */
export async function startSmtp(): Promise<{ port: number; inbox: Received[]; close(): Promise<void> }> {
  const inbox: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          inbox.push({
            to: (Array.isArray(mail.to) ? mail.to[0] : mail.to)?.text ?? '',
            subject: mail.subject ?? '',
            text: mail.text ?? '',
          });
          callback();
        },
        (err) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return { port, inbox, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
