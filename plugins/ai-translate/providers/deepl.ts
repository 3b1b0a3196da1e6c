import { TranslationBadResponseError } from '../errors.js';
import { joinUrl } from '../provider-http.js';
import type { TranslationProvider } from '../public.js';

/** DeepL API: POST {url}/v2/translate {text: [...], target_lang, source_lang?, tag_handling?} -> {translations: [{text}]}. */
export const deeplProvider: TranslationProvider = {
  id: 'deepl',
  label: 'DeepL',
  async translate(input, { settings, http }) {
    const base = settings.url.replace(/\/+$/, '');
    const answer = (await http.postJson(
      joinUrl(base, /\/v2$/.test(base) ? 'translate' : 'v2/translate'),
      {
        text: input.strings,
        target_lang: input.target.replace('_', '-').toUpperCase(),
        // DeepL's source languages have no regional variant (EN, not EN-GB).
        ...(input.source ? { source_lang: input.source.split(/[-_]/)[0]!.toUpperCase() } : {}),
        ...(input.format === 'html' ? { tag_handling: 'html' } : {}),
      },
      settings.apiKey ? { authorization: `DeepL-Auth-Key ${settings.apiKey}` } : {},
    )) as { translations?: unknown };
    const list = answer?.translations;
    if (!Array.isArray(list)) throw new TranslationBadResponseError('deepl', 'no translations array');
    return list.map((t) => (t && typeof t === 'object' ? (t as { text?: unknown }).text : undefined)) as string[];
  },
};
