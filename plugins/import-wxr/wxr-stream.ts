/**
 * Reads a WXR file as a stream with saxes (namespace-aware, never a DOM of the whole file), collects
 * one item / author / term at a time and writes its entities to the spool. DTD entities are never
 * resolved: saxes knows only the five XML entities, so any other reference (`&xxe;`, `&lol9;`) stays
 * literal text with a warning. Worker-side, no kernel imports.
 */
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import iconv from 'iconv-lite';
import { SaxesParser, type SaxesTagNS } from 'saxes';
import type { ImportParseInput } from '../importers/public.js';
import type { SpoolWriter } from '../../workers/import/spool-writer.js';
import { BareAmpersandRepair } from './bare-ampersands.js';
import { ASSUMED_PREFIXES, elementKey, wxrNamespaceVersion } from './wxr-names.js';
import { clean, type WxrNode } from './wxr-node.js';
import { ReferencedTerms } from './wxr-referenced.js';
import { ItemParents } from './wxr-links.js';
import { HeldTerms } from './wxr-held-terms.js';
import { authorRecord, categoryRecord, itemRecords, tagRecord, termRecord, type EntityOut, type RecordContext } from './wxr-records.js';
import { detached } from '../../lib/text/detached.js';

type Kind = 'item' | 'author' | 'category' | 'tag' | 'term' | 'version';
const COLLECTED: Record<string, Kind> = {
  item: 'item',
  'wp:author': 'author',
  'wp:category': 'category',
  'wp:tag': 'tag',
  'wp:term': 'term',
  'wp:wxr_version': 'version',
};
const CORE_ENTITIES = ['posts', 'pages', 'attachments', 'categories', 'tags', 'authors', 'comments'];
/** Errors after which saxes' recovery is exact (the text is kept as written): warn and go on. */
const RECOVERABLE =
  /^(undefined entity|the string "\]\]>" is disallowed|disallowed character\.|malformed character entity|empty entity name|unbound namespace prefix)/;
/** Entities of items and comments: a repeated id is renamed and kept. */
const ITEM_DUPLICATES_KEPT = (entity: string): boolean => !['authors', 'categories', 'tags', 'terms'].includes(entity);
const KNOWN_VERSIONS = ['1.0', '1.1', '1.2'];

const describeError = (message: string): string => {
  if (message.startsWith('undefined entity')) return 'undefined entity reference kept as literal text (DTD entities are never resolved)';
  if (message.startsWith('the string "]]>"')) return 'the text "]]>" outside a CDATA section (not well-formed XML): kept as written';
  if (message.startsWith('unbound namespace prefix')) return `${message.replace(/\.$/, '')}: the element is ignored`;
  return `${message.replace(/\.$/, '')} (kept as written)`;
};

export class WxrStream {
  private readonly parser: SaxesParser<{ xmlns: true; position: true }>;
  private readonly repair: BareAmpersandRepair;
  private readonly ctx: RecordContext;
  /** `<externalId>\0<language>` of the records written with a language. */
  private readonly languageIds = new Set<string>();
  private readonly depthLimit: number;
  private readonly ids = new Map<string, Set<string>>();
  private readonly assumedPrefixes = new Set<string>();
  private pending: Array<{ node: WxrNode; kind: Kind }> = [];
  /** Index in `pending` of the node the last close tag finished (dropped when that close tag was wrong). */
  private justFinished = -1;
  private depth = 0;
  private collecting: { node: WxrNode; kind: Kind } | null = null;
  private path: WxrNode[] = [];
  private fatal: { message: string; line: number; column: number } | null = null;
  private notWxrRoot: string | null = null;
  private declaredVersion: string | null = null;
  private namespaceVersion: string | null = null;
  private sawWxrElement = false;
  private items = 0;
  private sawText = false;
  private written = 0;
  /** The XML was not well-formed somewhere (a repaired bare "&", a recovered or fatal error); namespaces aside. */
  private illFormed = false;
  private sawRoot = false;

  readonly customFields = new Set<string>();
  readonly acfFields = new Set<string>();
  readonly shortcodes = new Map<string, number>();
  private readonly referenced = new ReferencedTerms();
  /** Records made from undeclared references, per entity (ImportParseSummary.referenced). */
  readonly referencedCounts: Record<string, number> = {};
  /** The parents items name, per entity (wxr-links.ts). */
  private readonly parents = new ItemParents();
  /** Terms held until the items begin, for their languages (wxr-held-terms.ts). */
  private readonly terms: HeldTerms;

  constructor(
    private readonly input: ImportParseInput,
    private readonly spool: SpoolWriter,
  ) {
    this.depthLimit = Math.max(16, input.maxDepth || 0);
    this.ctx = {
      warn: (m, l) => spool.warn(m, l),
      metaDepth: Math.max(1, (input.maxDepth || 32) - 3),
      customFields: this.customFields,
      acfFields: this.acfFields,
      shortcodes: this.shortcodes,
      referenced: this.referenced,
    };
    this.terms = new HeldTerms(this.ctx, (out, fromTerm) => this.write(out, fromTerm));
    let lastRepair = 0;
    this.repair = new BareAmpersandRepair((line) => {
      this.illFormed = true;
      if (line !== lastRepair) spool.warn('bare "&" escaped as "&amp;" (not well-formed XML, repaired)', line);
      lastRepair = line;
    });
    this.parser = new SaxesParser({ xmlns: true, position: true, resolvePrefix: (prefix: string) => this.assume(prefix) });
    this.parser.on('opentag', (tag) => this.open(tag));
    this.parser.on('closetag', () => this.close());
    this.parser.on('text', (text) => this.append(text, false));
    this.parser.on('cdata', (text) => this.append(text, true));
    this.parser.on('doctype', () => {
      if (!this.fatal) spool.warn('DOCTYPE declaration ignored: the entities it declares are never resolved', this.parser.line);
    });
    this.parser.on('error', (err) => this.error(err));
  }

  async run(): Promise<void> {
    for (const entity of CORE_ENTITIES) this.spool.touch(entity);
    const source = createReadStream(this.input.path);
    const text = this.decoded(source);
    let first = true;
    try {
      for await (const chunk of text) {
        let piece = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
        if (first) {
          first = false;
          if (piece.charCodeAt(0) === 0xfeff) piece = piece.slice(1);
        }
        if (!this.sawText && piece.trim() !== '') this.sawText = true;
        this.parser.write(this.repair.push(piece));
        await this.flush();
        if (this.fatal || this.notWxrRoot) break;
      }
      if (!this.fatal && !this.notWxrRoot) {
        this.parser.write(this.repair.end());
        this.parser.close();
        await this.flush();
      }
      await this.terms.release();
      // Terms and authors the items name but the file never declares (wxr-referenced.ts), unless the read stopped.
      if (!this.fatal && !this.notWxrRoot)
        for (const out of this.referenced.missing(this.ids)) {
          await this.write(out, false);
          this.referencedCounts[out.entity.entity] = (this.referencedCounts[out.entity.entity] ?? 0) + 1;
        }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const reason = `cannot read the file (${code ?? (err as Error).message})`;
      if (this.written === 0) this.spool.block(reason);
      else this.spool.warn(`${reason}: the rest of the file is not imported`);
      return;
    } finally {
      source.destroy();
    }
    this.conclude();
  }

  /** The file as text: UTF-8 unless the profile found another encoding iconv knows. */
  private decoded(source: Readable): AsyncIterable<string | Buffer> {
    const encoding = (this.input.profile?.encoding ?? 'utf-8').toLowerCase();
    if (/^(utf-?8|us-ascii|ascii)$/.test(encoding) || !iconv.encodingExists(encoding)) return source.setEncoding('utf8');
    const decoder = iconv.decodeStream(encoding);
    source.on('error', (err) => decoder.emit('error', err));
    return source.pipe(decoder) as unknown as AsyncIterable<string | Buffer>;
  }

  private assume(prefix: string): string | undefined {
    const uri = ASSUMED_PREFIXES[prefix];
    if (uri && !this.assumedPrefixes.has(prefix)) {
      this.assumedPrefixes.add(prefix);
      this.spool.warn(`namespace prefix "${prefix}" is used but never declared: read as ${uri}`, this.parser.line);
    }
    return uri;
  }

  private open(tag: SaxesTagNS): void {
    this.justFinished = -1;
    if (this.fatal || this.notWxrRoot) return;
    this.depth++;
    if (this.depth > this.depthLimit) {
      this.stop(`elements nested deeper than ${this.depthLimit} levels`);
      return;
    }
    if (this.namespaceVersion === null) {
      for (const uri of Object.values(tag.ns ?? {})) this.namespaceVersion ??= wxrNamespaceVersion(uri);
    }
    if (this.depth === 1) this.sawRoot = true;
    if (this.depth === 1 && (tag.local !== 'rss' || tag.uri)) {
      this.notWxrRoot = tag.name;
      return;
    }
    const key = elementKey(tag.uri, tag.local);
    if (key?.startsWith('wp:')) this.sawWxrElement = true;
    if (this.collecting) {
      const node = this.node(key, tag);
      this.path[this.path.length - 1]!.children.push(node);
      this.path.push(node);
      return;
    }
    const kind = key ? COLLECTED[key] : undefined;
    if (kind) {
      const node = this.node(key, tag);
      this.collecting = { node, kind };
      this.path = [node];
    }
  }

  private node(key: string | null, tag: SaxesTagNS): WxrNode {
    const attrs: Record<string, string> = {};
    for (const attr of Object.values(tag.attributes)) if (!attr.uri && !attr.prefix) attrs[attr.local] = attr.value;
    return { key, attrs, text: '', children: [], line: this.parser.line };
  }

  /**
   * Character data of the innermost element. Only leaves keep text (white space between an item's
   * children is not data); white space around CDATA sections is formatting and dropped, while the
   * text inside them is kept exactly (blank lines included).
   */
  private append(text: string, cdata: boolean): void {
    if (this.fatal || !this.collecting) return;
    const top = this.path[this.path.length - 1]!;
    if (top.children.length !== 0) return;
    if (cdata) {
      if (top.text !== '' && top.ws) top.text += top.ws;
      top.text += text;
      top.cdata = true;
      top.ws = '';
    } else if (/^[ \t\r\n]*$/.test(text)) top.ws = (top.ws ?? '') + text;
    else {
      top.text += (top.ws ?? '') + text;
      top.ws = '';
    }
  }

  private close(): void {
    this.justFinished = -1;
    if (this.fatal || this.notWxrRoot) return;
    this.depth--;
    if (!this.collecting) return;
    const done = this.path.pop()!;
    if (done.ws && !done.cdata) done.text += done.ws;
    delete done.ws;
    delete done.cdata;
    if (this.path.length === 0) {
      this.pending.push(this.collecting);
      this.justFinished = this.pending.length - 1;
      this.collecting = null;
    }
  }

  private error(err: Error): void {
    if (this.fatal || this.notWxrRoot) return;
    const message = err.message.replace(/^(?:.*?:)?\d+:\d+: /, '');
    // A prefix without a declaration is no well-formedness error (the profile reads without namespaces).
    if (!message.startsWith('unbound namespace prefix')) this.illFormed = true;
    if (RECOVERABLE.test(message)) {
      this.spool.warn(describeError(message), this.parser.line);
      return;
    }
    // A wrong close tag closed the element just finished: it is incomplete, not imported.
    if (message.startsWith('unexpected close tag') && this.justFinished >= 0) this.pending.splice(this.justFinished, 1);
    this.stop(message.replace(/\.$/, ''));
  }

  private stop(message: string): void {
    this.fatal = { message, line: this.parser.line, column: this.parser.column };
  }

  /**
   * Whether the document was well-formed XML (a root element, no error, nothing repaired); undefined
   * when the read stopped early for another reason (nesting past the depth limit) before an error.
   */
  get wellFormed(): boolean | undefined {
    if (this.illFormed || !this.sawRoot) return false;
    return this.fatal ? undefined : true;
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    this.justFinished = -1;
    for (const { node, kind } of batch) {
      if (kind === 'item') await this.terms.release();
      for (const out of this.records(node, kind))
        if (kind === 'category' || kind === 'tag' || kind === 'term') await this.terms.add(out, kind === 'term');
        else await this.write(out, false);
    }
  }

  private records(node: WxrNode, kind: Kind): EntityOut[] {
    switch (kind) {
      case 'item':
        return itemRecords(node, ++this.items, this.ctx);
      case 'version':
        this.declaredVersion ??= clean(node.text);
        return [];
      default: {
        const out =
          kind === 'author'
            ? authorRecord(node)
            : kind === 'category'
              ? categoryRecord(node, this.ctx)
              : kind === 'tag'
                ? tagRecord(node, this.ctx)
                : termRecord(node, this.ctx);
        if (out === 'consumed') return [];
        if (!out) this.spool.warn(`wp:${kind} without a name or slug: skipped`, node.line);
        return out ? [out] : [];
      }
    }
  }

  /**
   * Writes one entity. A repeated external id: terms repeated as wp:term are expected and skipped; a
   * repeated author or term is skipped with a warning; a repeated item (the same menu item listed in two
   * menus) is kept under `<id>~<n>` with a warning, so nothing in the file is lost.
   */
  private async write(out: EntityOut, fromTerm: boolean): Promise<void> {
    const { entity } = out;
    let seen = this.ids.get(entity.entity);
    if (!seen) this.ids.set(entity.entity, (seen = new Set()));
    // A post's translations (Polylang, WPML) share its external id, one per language.
    const langKey = entity.locale ? `${entity.externalId}\u0000${entity.locale}` : null;
    if (langKey ? this.languageIds.has(langKey) : seen.has(entity.externalId)) {
      if (fromTerm) return;
      if (!ITEM_DUPLICATES_KEPT(entity.entity)) {
        this.spool.warn(`${entity.entity} "${entity.externalId}" appears twice: the first one is kept`, entity.line);
        return;
      }
      let n = 2;
      while (seen.has(`${entity.externalId}~${n}`)) n++;
      const renamed = `${entity.externalId}~${n}`;
      this.spool.warn(`${entity.entity} "${entity.externalId}" appears more than once: this one is imported as "${renamed}"`, entity.line);
      entity.externalId = renamed;
    }
    seen.add(detached(entity.externalId));
    // A translation's own id (a post id, a term slug) names the same record: references to it are no missing record.
    for (const alias of entity.aliases ?? []) seen.add(detached(alias));
    if (langKey) this.languageIds.add(langKey);
    if (await this.spool.write(entity, out.kinds)) this.written++;
    if (ITEM_DUPLICATES_KEPT(entity.entity) && entity.entity !== 'comments') this.parents.note(entity.entity, entity.data.parent);
  }

  /** The links of the file (after run()): fixed ones and those of attachments and custom post types. */
  links(): ReturnType<ItemParents['links']> {
    return this.parents.links(this.ids, (m) => this.spool.warn(m));
  }

  /** Final checks: a stop before the end, the root, the WXR version, an empty export. */
  private conclude(): void {
    if (!this.sawText) {
      this.spool.block('the file is empty');
      return;
    }
    if (this.notWxrRoot) {
      this.spool.block(`not a WordPress export: the root element is <${this.notWxrRoot}>, not <rss>`);
      return;
    }
    if (this.fatal) {
      const { message, line, column } = this.fatal;
      const where = `line ${line}, column ${column}`;
      const cut = this.collecting ? ` (the element started on line ${this.collecting.node.line} is incomplete and not imported)` : '';
      if (this.written === 0) this.spool.block(`not well-formed XML at ${where}: ${message}; nothing could be imported${cut}`);
      else
        this.spool.warn(
          `not well-formed XML at ${where}: ${message}; the ${this.written} records before it are imported, the rest of the file is not${cut}`,
          line,
        );
      return;
    }
    if (!this.namespaceVersion && !this.sawWxrElement) {
      this.spool.block('not a WordPress export: no WXR namespace (http://wordpress.org/export/1.x/) and no wp: elements');
      return;
    }
    const assumed = this.namespaceVersion ?? '1.2';
    if (this.declaredVersion === null) this.spool.warn(`no <wp:wxr_version>: read as WXR ${assumed}`);
    else if (!/^\d+\.\d+$/.test(this.declaredVersion))
      this.spool.warn(`<wp:wxr_version> "${this.declaredVersion.slice(0, 40)}" is not a version: read as WXR ${assumed}`);
    else if (!KNOWN_VERSIONS.includes(this.declaredVersion))
      this.spool.warn(
        `WXR ${this.declaredVersion} is newer than the versions known (1.0 to 1.2): read as 1.2, unknown elements are ignored`,
      );
    if (this.written === 0) this.spool.block('the export holds nothing to import (no items, authors or terms)');
  }
}
