import { asFunction, asValue } from 'awilix';
import { type KernelState, definePlugin, type Logger } from '../../kernel/sdk.js';
import { translateOptionsSchema } from './options.js';
import { deeplProvider } from './providers/deepl.js';
import { libreTranslateProvider } from './providers/libretranslate.js';
import { openAiProvider } from './providers/openai.js';
import { createTranslationProviders } from './provider-registry.js';
import { translateRoutes } from './routes.js';
import { TranslateService } from './translate-service.js';

/**
 * POST /api/ai/translate (README, "Translation"): a registry of translation providers, the built-in
 * three, and the service that picks the configured one. Settings come from the environment and
 * `plugins.options.ai-translate`; keys are never logged or answered.
 */
export default definePlugin({
  options: translateOptionsSchema,
  register({ id, container, routes, options }) {
    const providers = createTranslationProviders();
    for (const provider of [openAiProvider, libreTranslateProvider, deeplProvider]) providers.add(provider, id);
    container.register('translationProviders', asValue(providers));
    container.register(
      'translation',
      asFunction(
        (cradle: { logger: Logger; kernelState: KernelState }) =>
          new TranslateService({
            options,
            providers,
            logger: cradle.logger.child({ plugin: 'ai-translate' }),
            stopping: cradle.kernelState.stopping,
          }),
      ).singleton(),
    );
    for (const route of translateRoutes(options)) routes.add(route);
  },
});
