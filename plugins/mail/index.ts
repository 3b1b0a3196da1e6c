import { join } from 'node:path';
import { asValue } from 'awilix';
import { z } from 'zod';
import { BootError } from '../../kernel/errors.js';
import { definePlugin } from '../../kernel/index.js';
import { Mailer } from './mailer.js';

/** plugins.options.mail, overridden by SMTP_HOST, SMTP_PORT, SMTP_SECURE, SMTP_USER, SMTP_PASSWORD, MAIL_FROM. */
const optionsSchema = z.object({
  from: z.string().min(3).default('CMS <no-reply@localhost>'),
  smtp: z.object({ host: z.string().min(1), port: z.number().int().min(1).max(65535).default(587), secure: z.boolean().default(false), user: z.string().optional(), password: z.string().optional() }).optional(),
});

export default definePlugin(() => {
  let mailer: Mailer | null = null;
  return {
    register({ container, config, options }) {
      const env = process.env;
      const merged = {
        ...options,
        ...(env.MAIL_FROM ? { from: env.MAIL_FROM } : {}),
        ...(env.SMTP_HOST
          ? { smtp: { host: env.SMTP_HOST, port: Number(env.SMTP_PORT ?? 587), secure: /^(1|true|yes)$/i.test(env.SMTP_SECURE ?? ''), user: env.SMTP_USER, password: env.SMTP_PASSWORD } }
          : {}),
      };
      const parsed = optionsSchema.safeParse(merged);
      if (!parsed.success) throw new BootError(`Invalid mail settings: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      mailer = new Mailer({ ...parsed.data, outboxDir: join(config.dataPath, 'outbox') });
      container.register('mailer', asValue(mailer));
    },
    close() {
      mailer?.close();
      mailer = null;
    },
  };
});
