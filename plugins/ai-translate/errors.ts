import { defineError } from '../../kernel/sdk.js';

export class TranslationUnavailableError extends defineError(
  'TRANSLATION_UNAVAILABLE',
  503,
  'No translation provider is configured (ai-translate: a provider URL such as AI_TRANSLATE_LIBRETRANSLATE_URL), or the chosen one is not installed.',
  (message = 'No translation provider is configured') => ({ message, expose: true }),
) {}

/** A request over one of the limits: how much it has of `what`, the limit in `extra`. */
const overLimit = (what: string) => (count: number, limit: number) => ({
  message: `${count} ${what} to translate; at most ${limit} per request`,
  extra: { limit },
});

export class TranslationTooManyStringsError extends defineError(
  'TRANSLATION_TOO_MANY_STRINGS',
  400,
  'A translation request has more strings than the limit (plugins.options.ai-translate.maxStrings, default 100).',
  overLimit('strings'),
) {}

export class TranslationTooLargeError extends defineError(
  'TRANSLATION_TOO_LARGE',
  413,
  'The text of a translation request is longer than the limit (plugins.options.ai-translate.maxCharacters, default 20000 characters in all).',
  overLimit('characters'),
) {}

export class TranslationProviderError extends defineError(
  'TRANSLATION_PROVIDER_ERROR',
  502,
  'The translation provider could not be reached, refused the credentials or answered with an error status; the message names the provider and the status.',
  (provider: string, detail: string) => ({ message: `The translation provider '${provider}' ${detail}`, expose: true }),
) {}

export class TranslationBadResponseError extends defineError(
  'TRANSLATION_BAD_RESPONSE',
  502,
  'The translation provider answered, but not with one translated string per string sent (malformed JSON, wrong count or type); nothing was saved.',
  (provider: string, detail: string) => ({
    message: `The translation provider '${provider}' gave an unusable answer: ${detail}`,
    expose: true,
  }),
) {}

export class TranslationTimeoutError extends defineError(
  'TRANSLATION_TIMEOUT',
  504,
  'The translation provider did not answer within the timeout (AI_TRANSLATE_TIMEOUT_MS, default 20 s); nothing was saved.',
  (provider: string, timeoutMs: number) => ({
    message: `The translation provider '${provider}' did not answer within ${timeoutMs / 1000} s`,
    expose: true,
  }),
) {}
