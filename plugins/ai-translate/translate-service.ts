import { AppError, type Logger, type Registry } from '../../kernel/sdk.js';
import {
  TranslationBadResponseError,
  TranslationProviderError,
  TranslationTooLargeError,
  TranslationTooManyStringsError,
  TranslationUnavailableError,
} from './errors.js';
import type { TranslateOptions } from './options.js';
import { providerHttp, sanitise } from './provider-http.js';
import type { ProviderSettings, TranslationInput, TranslationProvider } from './public.js';

export interface TranslationResult {
  provider: string;
  source: string | null;
  target: string;
  translations: string[];
}

export interface ProvidersStatus {
  /** Whether POST /api/ai/translate can translate now. */
  available: boolean;
  /** The provider in use, or null. */
  active: string | null;
  /** Every installed provider and whether it has a URL (never the URL or the key). */
  providers: Array<{ id: string; label: string; configured: boolean }>;
}

interface Active {
  provider: TranslationProvider;
  settings: ProviderSettings;
}

/**
 * Picks the provider (AI_TRANSLATE_PROVIDER, else the first configured one), enforces the limits,
 * calls the provider through the bounded HTTP client and checks its answer: one string per string
 * sent, in order. Blank strings are not sent (they come back as they were).
 */
export class TranslateService {
  constructor(
    private readonly deps: {
      options: TranslateOptions;
      providers: Registry<TranslationProvider>;
      logger: Logger;
      stopping: AbortSignal;
    },
  ) {}

  private settingsOf(id: string): ProviderSettings | null {
    const s = this.deps.options.providers[id];
    return s?.url ? (s as ProviderSettings) : null;
  }

  /** The provider in use; 503 TRANSLATION_UNAVAILABLE when there is none. */
  active(): Active {
    const { provider: chosen } = this.deps.options;
    if (chosen) {
      const provider = this.deps.providers.get(chosen);
      if (!provider) throw new TranslationUnavailableError(`The translation provider '${chosen}' (AI_TRANSLATE_PROVIDER) is not installed`);
      const settings = this.settingsOf(chosen);
      if (!settings) throw new TranslationUnavailableError(`The translation provider '${chosen}' has no URL configured`);
      return { provider, settings };
    }
    for (const provider of this.deps.providers.list()) {
      const settings = this.settingsOf(provider.id);
      if (settings) return { provider, settings };
    }
    throw new TranslationUnavailableError();
  }

  status(): ProvidersStatus {
    let active: string | null = null;
    try {
      active = this.active().provider.id;
    } catch {
      active = null;
    }
    return {
      available: active !== null,
      active,
      providers: this.deps.providers.list().map((p) => ({ id: p.id, label: p.label, configured: this.settingsOf(p.id) !== null })),
    };
  }

  /** 400 TRANSLATION_TOO_MANY_STRINGS, 413 TRANSLATION_TOO_LARGE. */
  checkLimits(strings: string[]): void {
    const { maxStrings, maxCharacters } = this.deps.options;
    if (strings.length > maxStrings) throw new TranslationTooManyStringsError(strings.length, maxStrings);
    const characters = strings.reduce((n, s) => n + s.length, 0);
    if (characters > maxCharacters) throw new TranslationTooLargeError(characters, maxCharacters);
  }

  async translate(input: TranslationInput, active: Active = this.active()): Promise<TranslationResult> {
    this.checkLimits(input.strings);
    const { provider, settings } = active;
    const result = { provider: provider.id, source: input.source, target: input.target };
    const sent = input.strings.map((s, i) => ({ s, i })).filter(({ s }) => s.trim() !== '');
    if (sent.length === 0) return { ...result, translations: [...input.strings] };

    const secrets = settings.apiKey ? [settings.apiKey] : [];
    const http = providerHttp(provider.id, { timeoutMs: this.deps.options.timeoutMs, stopping: this.deps.stopping, secrets });
    const started = performance.now();
    let answer: unknown;
    try {
      answer = await provider.translate({ ...input, strings: sent.map(({ s }) => s) }, { settings, http });
    } catch (err) {
      if (err instanceof AppError) {
        this.deps.logger.warn({ provider: provider.id, code: err.code, error: sanitise(err.message, secrets) }, 'translation failed');
        throw err;
      }
      // A provider's own failure: a 502, and its text only in the log (without the key).
      this.deps.logger.warn(
        { provider: provider.id, error: sanitise(String((err as Error)?.message ?? err), secrets) },
        'translation failed',
      );
      throw new TranslationProviderError(provider.id, 'failed; the details are in the log');
    }
    if (!Array.isArray(answer) || answer.length !== sent.length || !answer.every((t) => typeof t === 'string')) {
      const got = Array.isArray(answer)
        ? `${answer.length} items${answer.every((t) => typeof t === 'string') ? '' : ' (not all strings)'}`
        : typeof answer;
      const err = new TranslationBadResponseError(provider.id, `expected ${sent.length} translated strings, got ${got}`);
      this.deps.logger.warn({ provider: provider.id, code: err.code, error: err.message }, 'translation failed');
      throw err;
    }
    const translations = [...input.strings];
    sent.forEach(({ i }, k) => (translations[i] = answer[k] as string));
    this.deps.logger.info(
      {
        provider: provider.id,
        strings: sent.length,
        characters: sent.reduce((n, { s }) => n + s.length, 0),
        ms: Math.round(performance.now() - started),
      },
      'translated',
    );
    return { ...result, translations };
  }
}
