import { z } from 'zod';
import { NotFoundError, defineRoute, type RouteDefinition, optional } from '../../kernel/sdk.js';
import { translateEntry } from './entry-translation.js';
import type { TranslateOptions } from './options.js';

const tags = ['ai'];

const language = z
  .string()
  .regex(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8}){0,3}$/, 'a language code such as de, pt-BR or zh-Hans')
  .meta({ example: 'de' });

const stringsBody = z.strictObject({
  /** Hard bounds for the schema; the configured limits answer with their own codes. */
  strings: z.array(z.string().max(1_000_000)).min(1).max(10_000),
  target: language,
  source: language.optional(),
  format: z.enum(['text', 'html']).default('text'),
});

const entryBody = z.strictObject({
  collection: z.string().min(1).max(64),
  entryId: z.string().min(1).max(64),
  target: language,
  source: language.optional(),
  /** Text, markdown or richtext fields to translate; default: all of them. */
  fields: z.array(z.string().min(1).max(64)).min(1).max(100).optional(),
  save: z.boolean().default(false),
  /** Content locales (GET /api/locales): the entry is read in fromLocale (default: the default locale, with fallbacks). */
  fromLocale: z.string().min(1).max(35).optional(),
  /** Only the localized fields are translated, and `save` writes them into this locale's version as a draft. */
  intoLocale: z.string().min(1).max(35).optional(),
});

const stringsResult = z
  .object({ provider: z.string(), source: z.string().nullable(), target: z.string(), translations: z.array(z.string()) })
  .meta({ id: 'TranslatedStrings' });

export const translatedEntrySchema = z
  .object({
    provider: z.string(),
    source: z.string().nullable(),
    target: z.string(),
    collection: z.string(),
    entryId: z.string(),
    /** Field name -> translated value (fields that are empty are left out). */
    fields: z.record(z.string(), z.string()),
    saved: z.boolean(),
    /** The entry's version after the save (saved), else the version that was read. */
    version: z.number().int(),
  })
  .meta({ id: 'TranslatedEntry' });

const providersStatus = z
  .object({
    available: z.boolean(),
    active: z.string().nullable(),
    providers: z.array(z.object({ id: z.string(), label: z.string(), configured: z.boolean() })),
  })
  .meta({ id: 'TranslationProviders' });

export function translateRoutes(options: TranslateOptions): RouteDefinition[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/api/ai/translate',
      permission: 'ai:translate',
      tags,
      summary: 'Translates strings, or the text fields of an entry, with the configured translation provider',
      description:
        'Body `{strings, target, source?, format?}` answers `{provider, source, target, translations}` (one per string, in order; blank strings come back unchanged). ' +
        "Body `{collection, entryId, target, source?, fields?, save?}` translates the entry's text, markdown and richtext fields (markdown as text, richtext as HTML), read as the caller (content:read), " +
        'and answers `{provider, source, target, collection, entryId, fields, saved, version}`; `save: true` writes them into the entry (content:write, a new revision). ' +
        "With content locales: `fromLocale` reads the entry in that locale (fallbacks included); `intoLocale` translates the collection's localized fields only and `save` writes them into that locale's version as a draft (a machine translation goes live only when someone publishes it); the entry's other locales are not touched. " +
        `Limits: ${options.maxStrings} strings (400 TRANSLATION_TOO_MANY_STRINGS), ${options.maxCharacters} characters (413 TRANSLATION_TOO_LARGE). ` +
        '503 TRANSLATION_UNAVAILABLE without a provider; 502 TRANSLATION_PROVIDER_ERROR or TRANSLATION_BAD_RESPONSE, 504 TRANSLATION_TIMEOUT when the provider fails.',
      request: {
        body: z.union([stringsBody, entryBody], {
          error: 'expected {strings, target, source?, format?} or {collection, entryId, target, source?, fields?, save?}',
        }),
      },
      rateLimit: { points: options.rateLimitPerMinute, durationSeconds: 60 },
      response: z.union([stringsResult, translatedEntrySchema]),
      async handler({ body, scope }) {
        if ('strings' in body) {
          return scope.translation.translate({
            strings: body.strings,
            source: body.source ?? null,
            target: body.target,
            format: body.format,
          });
        }
        const content = optional(scope, 'content');
        if (!content) throw new NotFoundError('Entry translation needs the content plugin, which is not enabled');
        return translateEntry(scope.translation, content, {
          collection: body.collection,
          entryId: body.entryId,
          fields: body.fields,
          source: body.source ?? null,
          target: body.target,
          save: body.save,
          fromLocale: body.fromLocale,
          intoLocale: body.intoLocale,
        });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/ai/translate/providers',
      permission: 'ai:translate',
      tags,
      summary: 'The translation providers: which are installed and configured, and which one POST /api/ai/translate uses',
      description: 'Never shows an address or a key. `available: false` means POST /api/ai/translate answers 503 TRANSLATION_UNAVAILABLE.',
      request: {},
      response: providersStatus,
      handler: ({ scope }) => scope.translation.status(),
    }),
  ];
}
