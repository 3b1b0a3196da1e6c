import { TranslationBadResponseError } from '../errors.js';
import { joinUrl } from '../provider-http.js';
import type { TranslationInput, TranslationProvider } from '../public.js';

export const DEFAULT_OPENAI_MODEL = 'gpt-4o-mini';

/** `{url}/v1/chat/completions`, or `{url}/chat/completions` when the address already ends with /v1. */
export function chatCompletionsUrl(base: string): string {
  const trimmed = base.replace(/\/+$/, '');
  return /\/v1$/.test(trimmed) ? joinUrl(trimmed, 'chat/completions') : joinUrl(trimmed, 'v1/chat/completions');
}

export function instructions(input: TranslationInput): string {
  const from = input.source ? `from the language with the code '${input.source}'` : 'from the language it is written in';
  return [
    `You are a translation engine. The user message is a JSON array of ${input.strings.length} strings.`,
    `Translate each string ${from} into the language with the code '${input.target}'.`,
    input.format === 'html'
      ? 'The strings are HTML: translate the text only and keep every tag and attribute exactly as it is.'
      : 'Keep placeholders such as {name}, %s and {{value}}, URLs, e-mail addresses and Markdown markup unchanged.',
    `Answer with only a JSON array of exactly ${input.strings.length} translated strings, in the same order, and nothing else.`,
  ].join(' ');
}

/** The array in the model's answer: bare, in a ```json fence, or as {translations: [...]}. */
export function parseTranslations(content: string): unknown {
  const text = content
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && Array.isArray((parsed as { translations?: unknown }).translations))
    return (parsed as { translations: unknown }).translations;
  return parsed;
}

/** An OpenAI-compatible chat completions API (OpenAI, Azure-style gateways, Ollama, vLLM, LM Studio...). */
export const openAiProvider: TranslationProvider = {
  id: 'openai',
  label: 'OpenAI-compatible chat completions',
  async translate(input, { settings, http }) {
    const answer = (await http.postJson(
      chatCompletionsUrl(settings.url),
      {
        model: settings.model ?? DEFAULT_OPENAI_MODEL,
        messages: [
          { role: 'system', content: instructions(input) },
          { role: 'user', content: JSON.stringify(input.strings) },
        ],
      },
      settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {},
    )) as { choices?: Array<{ message?: { content?: unknown }; finish_reason?: unknown }> };
    const choice = Array.isArray(answer?.choices) ? answer.choices[0] : undefined;
    const content = choice?.message?.content;
    if (typeof content !== 'string') throw new TranslationBadResponseError('openai', 'no choices[0].message.content');
    if (choice?.finish_reason === 'length')
      throw new TranslationBadResponseError('openai', 'the answer was cut off (finish_reason: length)');
    const list = parseTranslations(content);
    if (!Array.isArray(list)) throw new TranslationBadResponseError('openai', 'the message is not a JSON array of strings');
    return list as string[];
  },
};
