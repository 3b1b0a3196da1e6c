/**
 * The spool file a parse task writes: one ImportedEntity per line (NDJSON), with the per-entity counts,
 * the field kinds seen and the warnings gathered on the way. Worker-side only (no kernel imports).
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { ImportedEntity, ImportFieldKind, ImportParseSummary } from '../../plugins/importers/public.js';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
/** Longest value a `text` field holds; a longer or multi-line string is `longtext`. */
const TEXT_MAX = 255;
/** Warnings kept in the summary; the rest are counted in one closing warning. */
const MAX_WARNINGS = 200;

/**
 * The kind a value suggests: scaffold mode turns these into collection field types. A string is never
 * rich text by its looks (a title such as `Tom & <Special>` is text, stored exactly as sent): only a
 * format that knows a field holds markup declares `richtext` (WXR content and excerpts, product
 * descriptions, a CMS schema's rich-text fields). A string too long or multi-line for a text field is
 * `longtext` (a plain long-text field, also stored exactly).
 */
export function inferKind(value: unknown): ImportFieldKind | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isFinite(value) ? 'number' : null;
  if (typeof value === 'string') {
    if (ISO_DATE.test(value) && !Number.isNaN(Date.parse(value.replace(' ', 'T')))) return 'date';
    return value.length > TEXT_MAX || value.includes('\n') ? 'longtext' : 'text';
  }
  return 'json';
}

const HTML = /<\/?[a-z][\s\S]*>/i;

/**
 * For CMS formats that have no schema to ask (Directus items without a snapshot): a value long or
 * multi-line enough for a body and holding markup is a rich-text body. Short values (titles, names)
 * never are, whatever they hold. Tabular formats (CSV, JSON rows) never call this.
 */
export function looksLikeRichText(value: unknown): boolean {
  return typeof value === 'string' && (value.length > TEXT_MAX || value.includes('\n')) && HTML.test(value);
}

const TEXTUAL = new Set<ImportFieldKind>(['text', 'longtext', 'richtext']);

/** Two kinds seen for one field: the one that holds both (plain text never widens to rich text). */
export function widenKind(a: ImportFieldKind | undefined, b: ImportFieldKind): ImportFieldKind {
  if (!a || a === b) return b;
  if (TEXTUAL.has(a) && TEXTUAL.has(b)) {
    // richtext only meets plain text when a format declared it for some records: the declaration holds.
    if (a === 'richtext' || b === 'richtext') return 'richtext';
    return 'longtext';
  }
  if (a === 'json' || b === 'json') return 'json';
  if (a === 'media' || a === 'relation') return a;
  if (b === 'media' || b === 'relation') return b;
  if (a === 'richtext' || b === 'richtext') return 'richtext';
  return a === 'longtext' || b === 'longtext' ? 'longtext' : 'text';
}

/** Nesting depth of a plain value (a scalar is 0), stopping once past `limit`. */
export function depthOf(value: unknown, limit: number, depth = 0): number {
  if (depth > limit || value === null || typeof value !== 'object') return depth;
  let max = depth;
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    max = Math.max(max, depthOf(child, limit, depth + 1));
    if (max > limit) break;
  }
  return max;
}

export class SpoolWriter {
  private readonly out: WriteStream;
  private readonly counts: Record<string, number> = {};
  private readonly fields: Record<string, Record<string, ImportFieldKind>> = {};
  private readonly warnings: Array<{ message: string; line?: number }> = [];
  private readonly blocked: string[] = [];
  private dropped = 0;
  private readonly refused: Record<string, number> = {};
  private readonly locales: Record<string, Record<string, number>> = {};
  /** References a parser found while reading (ImportParseSummary.links), used when close() is given none. */
  links: NonNullable<ImportParseSummary['links']> = [];
  /** References the upload cannot place itself (ImportParseSummary.earlierRefs). */
  earlierRefs: NonNullable<ImportParseSummary['earlierRefs']> = [];

  constructor(
    spoolPath: string,
    private readonly maxDepth = 32,
  ) {
    this.out = createWriteStream(spoolPath, { encoding: 'utf8' });
  }

  /** Writes one entity (waiting when the file is behind); a record nested past maxDepth is refused with a warning. */
  async write(entity: ImportedEntity, fieldKinds?: Record<string, ImportFieldKind>): Promise<boolean> {
    if (depthOf(entity.data, this.maxDepth) > this.maxDepth) {
      this.refuse(entity.entity, `${entity.entity} ${entity.externalId}: nested deeper than ${this.maxDepth} levels, skipped`, entity.line);
      return false;
    }
    this.counts[entity.entity] = (this.counts[entity.entity] ?? 0) + 1;
    if (entity.locale) {
      const langs = (this.locales[entity.entity] ??= {});
      langs[entity.locale] = (langs[entity.locale] ?? 0) + 1;
    }
    const kinds = (this.fields[entity.entity] ??= {});
    for (const [name, value] of Object.entries(entity.data)) {
      const kind = fieldKinds?.[name] ?? inferKind(value);
      if (kind) kinds[name] = widenKind(kinds[name], kind);
      else if (!(name in kinds)) kinds[name] = 'text';
    }
    if (!this.out.write(JSON.stringify(entity) + '\n')) await once(this.out, 'drain');
    return true;
  }

  /** Sets a field's kind once the parser knows more than the values said (a snapshot's relation holding integer ids). */
  setKind(entity: string, field: string, kind: ImportFieldKind): void {
    const kinds = this.fields[entity];
    if (kinds && field in kinds) kinds[field] = kind;
  }

  /**
   * Leaves a field out of the summary (the plan then maps nothing to it, so its values are not written): a field the
   * parser learns afterwards is no field (a Directus translations alias whose junction became the entity's languages).
   */
  forget(entity: string, field: string): void {
    delete this.fields[entity]?.[field];
  }

  /** Counts an entity kind without writing records (e.g. an empty section the summary should show as 0). */
  touch(entity: string): void {
    this.counts[entity] ??= 0;
  }

  warn(message: string, line?: number): void {
    if (this.warnings.length < MAX_WARNINGS) this.warnings.push(line === undefined ? { message } : { message, line });
    else this.dropped++;
  }

  /** A record that could not be read or used: warned, not written, and counted (the run reports it as failed). */
  refuse(entity: string, message: string, line?: number): void {
    this.refused[entity] = (this.refused[entity] ?? 0) + 1;
    this.warn(message, line);
  }

  block(reason: string): void {
    this.blocked.push(reason);
  }

  async close(
    extra: Pick<ImportParseSummary, 'acfFields' | 'wellFormed' | 'shortcodes' | 'links' | 'referenced'> = {},
  ): Promise<ImportParseSummary> {
    this.out.end();
    await once(this.out, 'finish');
    const warnings = this.dropped ? [...this.warnings, { message: `${this.dropped} more warnings not shown` }] : this.warnings;
    return {
      counts: this.counts,
      fields: this.fields,
      warnings,
      blockedReasons: this.blocked,
      ...(extra.acfFields ? { acfFields: extra.acfFields } : {}),
      ...(Object.keys(this.refused).length ? { refused: { ...this.refused } } : {}),
      ...(extra.wellFormed === undefined ? {} : { wellFormed: extra.wellFormed }),
      ...(extra.shortcodes && Object.keys(extra.shortcodes).length ? { shortcodes: extra.shortcodes } : {}),
      ...(extra.referenced && Object.keys(extra.referenced).length ? { referenced: extra.referenced } : {}),
      ...(this.earlierRefs.length ? { earlierRefs: this.earlierRefs } : {}),
      ...(Object.keys(this.locales).length ? { locales: this.locales } : {}),
      ...((extra.links ?? this.links).length
        ? { links: (extra.links ?? this.links).filter((l) => (this.counts[l.entity] ?? 0) > 0 && (this.counts[l.to] ?? 0) > 0) }
        : {}),
    };
  }

  /** Closes the file after a failure (the summary is discarded). */
  abort(): void {
    // A write or open still under way reports the destroyed stream as an error: nobody waits for it any more.
    this.out.on('error', () => undefined);
    this.out.destroy();
  }
}
