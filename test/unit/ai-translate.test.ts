import { expect } from 'chai';
import { BootError, ContractError } from '../../kernel/errors.js';
import { mapPluginEnv } from '../../kernel/plugin-env.js';
import { readManifest } from '../../kernel/manifest.js';
import { join } from 'node:path';
import { DIST_ROOT } from '../../kernel/version.js';
import { translateOptionsSchema } from '../../plugins/ai-translate/options.js';
import { resolvePluginOptions } from '../../kernel/plugin-config.js';
import { sanitise } from '../../plugins/ai-translate/provider-http.js';
import { createTranslationProviders } from '../../plugins/ai-translate/provider-registry.js';
import { chatCompletionsUrl, parseTranslations } from '../../plugins/ai-translate/providers/openai.js';

describe('ai-translate (unit)', function () {
  const manifest = readManifest(join(DIST_ROOT, 'plugins', 'ai-translate', 'plugin.json'));
  const fromEnv = (env: Record<string, string>, raw: Record<string, unknown> = {}) => {
    // The kernel's one configuration path, as it runs for the plugin at boot.
    const layers = {
      pluginId: 'ai-translate',
      options: raw,
      env: mapPluginEnv(manifest.env, env),
      settingsMapping: {},
      settings: new Map(),
    };
    return resolvePluginOptions(translateOptionsSchema, layers).value;
  };

  it('reads the providers from the environment, over plugins.options', function () {
    const options = fromEnv(
      { AI_TRANSLATE_OPENAI_URL: 'https://llm.example/v1', AI_TRANSLATE_OPENAI_API_KEY: 'sk-1', AI_TRANSLATE_TIMEOUT_MS: '5000' },
      { providers: { openai: { url: 'https://old.example', model: 'm1' } }, maxStrings: 10 },
    );
    expect(options.providers.openai).to.deep.equal({ url: 'https://llm.example/v1', apiKey: 'sk-1', model: 'm1' });
    expect(options).to.include({ timeoutMs: 5000, maxStrings: 10, maxCharacters: 20_000, rateLimitPerMinute: 30 });
    expect(fromEnv({}).providers).to.deep.equal({});
  });

  it('stops the boot on a bad value, naming the variable and never the value', function () {
    expect(() => fromEnv({ AI_TRANSLATE_LIBRETRANSLATE_URL: 'ftp://user:hunter2@host' }))
      .to.throw(BootError, 'AI_TRANSLATE_LIBRETRANSLATE_URL')
      .and.satisfy((e: Error) => !e.message.includes('hunter2'));
    expect(() => fromEnv({ AI_TRANSLATE_TIMEOUT_MS: 'soon' })).to.throw(BootError, 'AI_TRANSLATE_TIMEOUT_MS');
    expect(() => fromEnv({}, { maxStrings: 0 })).to.throw(BootError, 'plugins.options.ai-translate.maxStrings');
  });

  it('the provider registry checks the contract and names both plugins of a duplicate', function () {
    const registry = createTranslationProviders();
    expect(() => registry.add({ id: 'x', label: 'X' } as never, 'p1')).to.throw(
      ContractError,
      "Translation provider 'x' does not implement translate()",
    );
    registry.add({ id: 'x', label: 'X', translate: async () => [] }, 'p1');
    expect(() => registry.add({ id: 'x', label: 'X', translate: async () => [] }, 'p2')).to.throw(ContractError, "'p1'");
  });

  it('finds the array in a model answer and the chat completions address', function () {
    expect(parseTranslations('["a","b"]')).to.deep.equal(['a', 'b']);
    expect(parseTranslations('```json\n["a"]\n```')).to.deep.equal(['a']);
    expect(parseTranslations('{"translations":["a"]}')).to.deep.equal(['a']);
    expect(parseTranslations('Here: a, b')).to.equal(undefined);
    expect(chatCompletionsUrl('https://api.example/')).to.equal('https://api.example/v1/chat/completions');
    expect(chatCompletionsUrl('https://api.example/v1')).to.equal('https://api.example/v1/chat/completions');
  });

  it('removes keys and control characters from a provider message and shortens it', function () {
    expect(sanitise('bad key abcd1234\nagain abcd1234', ['abcd1234'])).to.equal('bad key [redacted] again [redacted]');
    expect(sanitise('x'.repeat(300), [])).to.have.length(203);
  });
});
