import { join } from 'node:path';
import { asValue } from 'awilix';
import { z } from 'zod';
import { BootError, definePlugin } from '../../kernel/sdk.js';
import { Mailer } from './mailer.js';

/** plugins.options.mail, overridden by SMTP_HOST, SMTP_PORT, SMTP_SECURE, SMTP_USER, SMTP_PASSWORD, MAIL_FROM. */
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
    register({ container, config, options, envOptions }) {
      // MAIL_FROM and SMTP_* (plugin.json `env`, mapped by the kernel) win; SMTP_HOST replaces the whole smtp block.
      const env = envOptions as {
        from?: unknown;
        smtp?: { host?: unknown; port?: unknown; secure?: unknown; user?: unknown; password?: unknown };
      };
      const smtp = env.smtp ?? {};
      const merged = {
        ...options,
        ...(env.from !== undefined ? { from: env.from } : {}),
        ...(smtp.host !== undefined
          ? {
              smtp: {
                host: smtp.host,
                port: Number(smtp.port ?? 587),
                secure: smtp.secure === true,
                user: smtp.user,
                password: smtp.password,
              },
            }
          : {}),
      };
      const parsed = optionsSchema.safeParse(merged);
      if (!parsed.success)
        throw new BootError(`Invalid mail settings: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      mailer = new Mailer({ ...parsed.data, outboxDir: join(config.dataPath, 'outbox') });
      container.register('mailer', asValue(mailer));
    },
    close() {
      mailer?.close();
      mailer = null;
    },
  };
});
