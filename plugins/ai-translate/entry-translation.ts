import { ConflictError, ForbiddenError, ValidationError, hasPermission, type ContainerServices } from '../../kernel/sdk.js';
import type { z } from 'zod';
import type { TranslateService } from './translate-service.js';
import type { translatedEntrySchema } from './routes.js';

/** The content plugin's request-scoped client (its public contract), acting as the caller. */
type ContentClient = ContainerServices['content'];

/** The field types whose values are translated: text and markdown (its source) as plain text, richtext as HTML. */
const TEXT_TYPES: Record<string, 'text' | 'html'> = { text: 'text', richtext: 'html', markdown: 'text' };

export interface EntryTranslationRequest {
  collection: string;
  entryId: string;
  fields?: string[];
  source: string | null;
  target: string;
  save: boolean;
  /** Content locale the entry is read in (default: the default locale). */
  fromLocale?: string;
  /** Content locale whose version the localized fields are translated for (and saved into, as a draft). */
  intoLocale?: string;
}

/** What POST /api/ai/translate-entry answers: its route's response schema (routes.ts) is the one definition. */
export type EntryTranslation = z.output<typeof translatedEntrySchema>;

/**
 * Translates the text and rich-text fields of one entry (or the listed ones), read through the content
 * plugin's client as the caller (content:read). With `save`, writes them into the entry as a partial
 * update (content:write; a new revision keeps the previous text); an entry changed meanwhile answers
 * 409 CONFLICT and nothing is written.
 */
export async function translateEntry(
  service: TranslateService,
  content: ContentClient,
  req: EntryTranslationRequest,
): Promise<EntryTranslation> {
  const active = service.active();
  // Refused before anything is sent to the provider.
  if (req.save && !hasPermission(content.identity, 'content:write'))
    throw new ForbiddenError("Saving the translation into the entry needs the permission 'content:write'");
  const collection = await content.collections.get(req.collection);
  const formats = new Map<string, 'text' | 'html'>();
  // Into a locale: only the localized fields (a shared field's value is every locale's).
  for (const f of collection.fields)
    if (TEXT_TYPES[f.type] && (req.intoLocale === undefined || (f as { localized?: boolean }).localized))
      formats.set(f.name, TEXT_TYPES[f.type]!);
  if (req.fields) {
    const issues = req.fields.flatMap((name, i) =>
      formats.has(name)
        ? []
        : [
            {
              path: `fields.${i}`,
              message: `'${name}' is not a ${req.intoLocale === undefined ? '' : 'localized '}text, markdown or richtext field of '${req.collection}'`,
            },
          ],
    );
    if (issues.length) throw new ValidationError(`Invalid fields: ${issues.map((i) => i.message).join('; ')}`, issues);
  }
  // Unknown locales are refused before anything is sent to the provider.
  if (req.fromLocale !== undefined || req.intoLocale !== undefined) {
    const known = new Set((await content.locales.list()).map((l) => l.code.toLowerCase()));
    const unknown = (['fromLocale', 'intoLocale'] as const).filter((k) => req[k] !== undefined && !known.has(req[k]!.toLowerCase()));
    if (unknown.length)
      throw new ValidationError(
        `Unknown locale: ${unknown.map((k) => req[k]).join(', ')} (GET /api/locales lists them)`,
        unknown.map((k) => ({ path: k, message: 'not a locale of this installation' })),
      );
  }
  const entries = content.entries(req.collection);
  const from = req.fromLocale === undefined ? {} : { locale: req.fromLocale };
  const into = req.intoLocale === undefined ? {} : { locale: req.intoLocale };
  const entry = await entries.get(req.entryId, from);
  const names = [...new Set(req.fields ?? [...formats.keys()])].filter((n) => typeof entry[n] === 'string' && entry[n].trim() !== '');
  service.checkLimits(names.map((n) => entry[n] as string));

  const fields: Record<string, string> = {};
  for (const format of ['text', 'html'] as const) {
    const group = names.filter((n) => formats.get(n) === format);
    if (group.length === 0) continue;
    const result = await service.translate(
      { strings: group.map((n) => entry[n] as string), source: req.source, target: req.target, format },
      active,
    );
    group.forEach((n, i) => (fields[n] = result.translations[i]!));
  }
  const answer = {
    provider: active.provider.id,
    source: req.source,
    target: req.target,
    collection: req.collection,
    entryId: req.entryId,
    fields,
  };
  if (!req.save || Object.keys(fields).length === 0) return { ...answer, saved: false, version: entry.version };
  // Saved only over the version that was translated (ifVersion: 409 CONFLICT when it changed meanwhile).
  const saved = await entries
    .update(req.entryId, req.intoLocale === undefined ? fields : { ...fields, status: 'draft' }, { ...into, ifVersion: entry.version })
    .catch((err: unknown) => {
      if ((err as { code?: string; extra?: { current?: unknown } }).extra?.current !== undefined)
        throw new ConflictError(`Entry '${req.entryId}' was changed while it was being translated; nothing was saved, translate it again`);
      throw err;
    });
  return { ...answer, saved: true, version: saved.version };
}
