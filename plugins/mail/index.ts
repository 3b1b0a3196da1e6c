import { join } from 'node:path';
import { asValue } from 'awilix';
import { z } from 'zod';
import { definePlugin } from '../../kernel/sdk.js';
import { Mailer } from './mailer.js';

/**
 * plugins.options.mail under MAIL_FROM and SMTP_HOST, SMTP_PORT, SMTP_SECURE, SMTP_USER, SMTP_PASSWORD (merged by
 * the kernel). The SMTP_* variables form one block (plugin.json): they count only with SMTP_HOST, and then replace
 * the whole `smtp` option (a port not given by SMTP_PORT is the default, never the file's).
 */
const optionsSchema = z.object({
  from: z.string().min(3).default('CMS <no-reply@localhost>'),
  smtp: z
    .object({
      host: z.string().min(1),
      port: z.number().int().min(1).max(65535).default(587),
      secure: z.boolean().default(false),
      user: z.string().optional(),
      password: z.string().optional(),
    })
    .optional(),
});

export default definePlugin(() => {
  let mailer: Mailer | null = null;
  return {
    options: optionsSchema,
    register({ container, config, options }) {
      mailer = new Mailer({ ...options, outboxDir: join(config.dataPath, 'outbox') });
      container.register('mailer', asValue(mailer));
    },
    close() {
      mailer?.close();
      mailer = null;
    },
  };
});
