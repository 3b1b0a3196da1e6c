import { z } from 'zod';

const hostname = z
  .string()
  .min(1)
  .max(253)
  .regex(/^(?=.*[a-z])[a-z0-9-]+(\.[a-z0-9-]+)*$/i, 'a domain name such as example.com (not a URL, not an IP address)');
const originUrl = z
  .string()
  .url()
  .refine((u) => /^https?:$/.test(new URL(u).protocol), 'an http(s) origin such as https://cms.example.com');

/** plugins.options['auth-passkeys']. */
export const optionsSchema = z
  .object({
    /** The name authenticators show beside the passkey. */
    rpName: z.string().min(1).max(64).default('CMS'),
    /** The relying party id (a domain); default: the host of the public address. */
    rpId: hostname.optional(),
    /** The origin(s) browsers sign in from; default: the public address's origin. */
    origin: z.union([originUrl, z.array(originUrl).min(1).max(10)]).optional(),
    /** The public address when CMS_PUBLIC_URL is not set; default http://<host>:<port>. */
    publicUrl: originUrl.optional(),
    userVerification: z.enum(['required', 'preferred', 'discouraged']).default('preferred'),
    /** How long options (and their challenge) stay valid. */
    timeoutMs: z
      .number()
      .int()
      .min(10_000)
      .max(60 * 60_000)
      .default(5 * 60_000),
  })
  .superRefine((o, issue) => {
    if (!o.rpId || !o.origin) return;
    for (const origin of Array.isArray(o.origin) ? o.origin : [o.origin]) {
      const host = new URL(origin).hostname.toLowerCase();
      if (host !== o.rpId.toLowerCase() && !host.endsWith(`.${o.rpId.toLowerCase()}`)) {
        issue.addIssue({
          code: 'custom',
          path: ['origin'],
          message: `${origin} is not on rpId '${o.rpId}' or one of its subdomains (browsers would refuse it)`,
        });
      }
    }
  });

export type PasskeyOptions = z.output<typeof optionsSchema>;
