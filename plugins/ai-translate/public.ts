/**
 * The ai-translate plugin's public surface: the contract of a translation provider, its container keys
 * (the provider registry and the service) and the errors a provider throws. A plugin that brings its own
 * provider `requires` ai-translate and, in its boot, adds it:
 *
 *   container.resolve('translationProviders').add(myProvider, 'my-plugin');
 *
 * Its settings come from `plugins.options.ai-translate.providers.<id>` ({url, apiKey?, model?, ...}).
 */
import type { Registry } from '../../kernel/sdk.js';
import type { TranslateService } from './translate-service.js';

export { TranslationBadResponseError, TranslationProviderError, TranslationTimeoutError } from './errors.js';
export type { TranslateService, TranslationResult, ProvidersStatus } from './translate-service.js';

/** What is translated in one call: strings in order, from `source` (null: the provider detects it) to `target`. */
export interface TranslationInput {
  strings: string[];
  source: string | null;
  target: string;
  /** `html`: the strings carry markup (rich-text fields) whose tags stay as they are. */
  format: 'text' | 'html';
}

/** A provider's settings (`plugins.options.ai-translate.providers.<id>`, the environment for the built-in ones). */
export interface ProviderSettings {
  url: string;
  /** Never logged, never part of an answer or a message. */
  apiKey?: string;
  model?: string;
  [key: string]: unknown;
}

/**
 * The HTTP client a provider calls through: the configured timeout, the instance's stop signal, no
 * redirects. A failure throws the plugin's errors (TRANSLATION_TIMEOUT, TRANSLATION_PROVIDER_ERROR with
 * the status and the provider's own error text, credentials removed; TRANSLATION_BAD_RESPONSE when a
 * 2xx body is not JSON).
 */
export interface ProviderHttp {
  postJson(url: string, body: unknown, headers?: Record<string, string>): Promise<unknown>;
}

export interface TranslationProvider {
  /** The name `AI_TRANSLATE_PROVIDER` and `providers.<id>` use: lower-case letters, digits and dashes. */
  id: string;
  label: string;
  /**
   * One translated string per input string, in order. The service checks the answer again (count and
   * type) and refuses it with TRANSLATION_BAD_RESPONSE; a provider throws that error itself when the
   * answer's shape is not its API's.
   */
  translate(input: TranslationInput, call: { settings: ProviderSettings; http: ProviderHttp }): Promise<string[]>;
}

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    /** The translation providers (built-in: openai, libretranslate, deepl). */
    translationProviders: Registry<TranslationProvider>;
    translation: TranslateService;
  }
}
