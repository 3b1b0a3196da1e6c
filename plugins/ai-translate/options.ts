import { z } from 'zod';
import { BootError } from '../../kernel/sdk.js';

const providerSettings = z.looseObject({
  url: z.url({ protocol: /^https?$/ }),
  apiKey: z.string().min(1).max(4096).optional(),
  model: z.string().min(1).max(200).optional(),
});

/**
 * plugins.options['ai-translate']; the environment variables of the manifest win over the file
 * (README, "Plugin settings from the environment").
 */
const schema = z.strictObject({
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
export type TranslateOptions = z.output<typeof schema>;

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v) && b && typeof b === 'object' && !Array.isArray(b)
        ? deepMerge(b as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

/** Parses the options (env over file); a bad value stops the boot naming the variable or option, never the value. */
export function parseTranslateOptions(
  raw: Record<string, unknown>,
  env: Record<string, unknown>,
  sources: Record<string, string>,
): TranslateOptions {
  const parsed = schema.safeParse(deepMerge(raw, env));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const key = issue.path.map(String).join('.');
  const where = sources[key] ? `environment variable ${sources[key]}` : `plugins.options.ai-translate.${key}`;
  throw new BootError(`Invalid ${where}: ${issue.message}`);
}
