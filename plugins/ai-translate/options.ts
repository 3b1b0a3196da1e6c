import { z } from 'zod';

const providerSettings = z.looseObject({
  url: z.url({ protocol: /^https?$/ }),
  apiKey: z.string().min(1).max(4096).optional(),
  model: z.string().min(1).max(200).optional(),
});

/**
 * plugins.options['ai-translate']; the environment variables of the manifest win over the file
 * (README, "Plugin settings from the environment").
 */
/** plugins.options['ai-translate'], with the AI_TRANSLATE_* variables over it (merged by the kernel, key by key). */
export const translateOptionsSchema = z.strictObject({
  /** AI_TRANSLATE_PROVIDER: the provider's id; default: the first configured of openai, libretranslate, deepl, then added ones. */
  provider: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/, 'a provider id such as openai, libretranslate or deepl')
    .optional(),
  /** providers.<id>: {url, apiKey?, model?, ...}; a provider without a url is not configured. */
  providers: z.record(z.string().regex(/^[a-z][a-z0-9-]*$/), providerSettings).default({}),
  /** AI_TRANSLATE_TIMEOUT_MS: one call to the provider. */
  timeoutMs: z.number().int().min(100).max(300_000).default(20_000),
  /** Strings per request (strings mode; fields in entry mode). */
  maxStrings: z.number().int().min(1).max(1000).default(100),
  /** Characters per request, all strings together. */
  maxCharacters: z.number().int().min(1).max(1_000_000).default(20_000),
  /** Requests per minute per client IP on POST /api/ai/translate. */
  rateLimitPerMinute: z.number().int().min(1).max(10_000).default(30),
});
export type TranslateOptions = z.output<typeof translateOptionsSchema>;
