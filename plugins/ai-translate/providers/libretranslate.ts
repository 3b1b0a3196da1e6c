import { TranslationBadResponseError } from '../errors.js';
import { joinUrl } from '../provider-http.js';
import type { TranslationProvider } from '../public.js';

/** LibreTranslate: POST {url}/translate {q: [...], source, target, format, api_key} -> {translatedText: [...]}. */
export const libreTranslateProvider: TranslationProvider = {
  id: 'libretranslate',
  label: 'LibreTranslate',
  async translate(input, { settings, http }) {
    const answer = (await http.postJson(joinUrl(settings.url, 'translate'), {
      q: input.strings,
      source: input.source ?? 'auto',
      target: input.target,
      format: input.format,
      ...(settings.apiKey ? { api_key: settings.apiKey } : {}),
    })) as { translatedText?: unknown };
    const translated = answer?.translatedText;
    // An older server answers a one-string request with a string.
    if (typeof translated === 'string' && input.strings.length === 1) return [translated];
    if (!Array.isArray(translated)) throw new TranslationBadResponseError('libretranslate', 'no translatedText array');
    return translated as string[];
  },
};
