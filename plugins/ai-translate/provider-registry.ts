import { Registry } from '../../kernel/sdk.js';
import type { TranslationProvider } from './public.js';

/**
 * The registry of translation providers (container key `translationProviders`; the contract is in
 * public.ts): each added provider is checked for its id, label and translate(), and an id added twice
 * names both plugins.
 */
export function createTranslationProviders(): Registry<TranslationProvider> {
  return new Registry<TranslationProvider>('Translation provider', 'id', {
    required: { label: 'string', translate: 'function' },
  });
}
