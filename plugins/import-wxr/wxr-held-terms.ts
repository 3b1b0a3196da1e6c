/**
 * The terms of a WordPress export, held until the items begin (issue 36): WordPress writes the categories and tags
 * (`wp:category`, `wp:tag`) before the custom taxonomies' terms (`wp:term`), and Polylang's term translation groups
 * (`term_translations`) are terms of a custom taxonomy, so a category's language is known only once every term was
 * read. Each held term then gets its language (WPML's termmeta or Polylang's group, wxr-languages.ts): the terms of
 * one group share the external id of its first member, each in its language, with its own id as an alias.
 * Worker-side, no kernel imports.
 */
import { termLanguage } from './wxr-languages.js';
import type { PhpValue } from './php-unserialize.js';
import type { EntityOut, RecordContext } from './wxr-records.js';

/** Most terms held (and term ids remembered); past it, terms are written at once, with WPML's language only. */
const MAX_HELD = 50_000;

export class HeldTerms {
  private held: Array<{ out: EntityOut; fromTerm: boolean }> = [];
  /** Term id -> the external id of its first record. */
  private readonly ids = new Map<string, string>();
  private released = false;
  private warned = false;

  constructor(
    private readonly ctx: RecordContext,
    private readonly write: (out: EntityOut, fromTerm: boolean) => Promise<void>,
  ) {}

  /** A term's record: held while the terms are being read, else written with its language. */
  async add(out: EntityOut, fromTerm: boolean): Promise<void> {
    const wpId = out.entity.data.wpId;
    if (typeof wpId === 'number' && !this.ids.has(String(wpId)) && this.ids.size < MAX_HELD)
      this.ids.set(String(wpId), out.entity.externalId);
    if (!this.released && this.held.length < MAX_HELD) {
      this.held.push({ out, fromTerm });
      return;
    }
    if (!this.released && !this.warned) {
      this.warned = true;
      this.ctx.warn(`more than ${MAX_HELD} terms: the later ones get no language from Polylang's term translation groups`);
    }
    await this.write(this.withLanguage(out), fromTerm);
  }

  /** The items begin (or the file ends): the held terms are written, each with its language. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    const held = this.held;
    this.held = [];
    for (const { out, fromTerm } of held) await this.write(this.withLanguage(out), fromTerm);
  }

  private withLanguage(out: EntityOut): EntityOut {
    const { entity } = out;
    const meta = (entity.data.meta ?? {}) as Record<string, PhpValue>;
    const lang = termLanguage(String(entity.data.wpId ?? ''), meta, this.ids, this.ctx);
    if (!lang?.code) return out;
    entity.locale = lang.code;
    if (lang.source) entity.sourceLocale = true;
    if (lang.group && lang.group !== entity.externalId) {
      entity.aliases = [entity.externalId];
      entity.externalId = lang.group;
    }
    return out;
  }
}
