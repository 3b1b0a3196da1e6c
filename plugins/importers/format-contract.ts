/**
 * The contract of the `importFormats` extension point, owned by the importers plugin (the one that reads
 * it): what a format plugin registers, what its detect() and its parse task are given, and what they answer.
 */

/**
 * What the importers plugin learns about an upload once (in the worker pool, reading the whole file,
 * nesting depth bounded) and hands to every format's detect(): structure, not a guess from a prefix.
 */
export interface ImportProfile {
  /** The outer wrapping: a plain file, or a tar archive (gzip-compressed or not). */
  container: 'plain' | 'tar';
  /** Text encoding of a plain text file (`utf-8`, `utf-16le`, `windows-1252`...), BOM seen or not. */
  encoding: string;
  bom: boolean;
  /** What a plain file (or the archive's main document) is. */
  kind: 'json' | 'ndjson' | 'xml' | 'delimited' | 'binary' | 'unknown';
  /**
   * Only the start of the file was profiled (XML, NDJSON or delimited text over 256 KiB): counts (rows,
   * lines) are of that part and `xml.wellFormed` says "so far"; the parse task reads the whole file.
   */
  partial?: boolean;
  json?: {
    root: 'array' | 'object' | 'scalar';
    /** Keys of the root object (first 200). */
    topKeys: string[];
    /** Where the records are: '' for a root array, else the root key holding the first array of objects (`data`). */
    recordsPath: string | null;
    /** Number of records at recordsPath. */
    recordCount: number;
    /** Union of the keys of the first 50 records. */
    recordKeys: string[];
    /** Distinct values of the records' `type` field (Drupal JSON:API `node--article`), first 50. */
    recordTypes: string[];
    /** The deepest nesting seen (the parse stops past the limit). */
    maxDepth: number;
  };
  ndjson?: { lines: number; recordKeys: string[]; recordTypes: string[] };
  xml?: {
    root: string;
    /** prefix -> namespace URI declared on the root and its first children (`wp` -> `http://wordpress.org/export/1.2/`). */
    namespaces: Record<string, string>;
    /** Element names (with prefix) seen in the first 200 elements. */
    elements: string[];
    /** A DOCTYPE was present (it is never resolved). */
    doctype: boolean;
    wellFormed: boolean;
  };
  delimited?: { delimiter: string; header: string[]; rows: number };
  /** tar container: entry paths (first 2000) and the ones refused (`..`, absolute, links). */
  archive?: { entries: string[]; rejected: string[]; jsonEntries: Record<string, ImportProfile['json']> };
}

export interface ImportSample {
  filename: string;
  size: number;
  /** The first 64 KiB of the upload (gzip-compressed bytes for an archive). */
  head: Buffer;
  profile: ImportProfile;
}

/** One normalised record written by a parse task: one JSON object per line of the spool file. */
export interface ImportedEntity {
  /** Plural entity name; the default target collection (`posts`, `pages`, `attachments`, `products`...). */
  entity: string;
  /** Stable id in the source: a re-import updates the entry recorded for it instead of duplicating. */
  externalId: string;
  /** Field values: string, number, boolean, null, arrays and plain objects (depth bounded). */
  data: Record<string, unknown>;
  /** Publication state when the source has one. */
  status?: 'draft' | 'published';
  /** Attachments: where the bytes are (a file the task extracted under workDir, or a remote URL). */
  file?: { path?: string; url?: string; filename: string; mimeType?: string };
  /** Source line (CSV, NDJSON) or record number, for warnings. */
  line?: number;
  /**
   * The source's language of this record (Drupal `langcode`, Directus `languages_code`, Strapi `locale`,
   * WordPress Polylang/WPML language), as the source spells it. Records of one source entity in several
   * languages share `externalId` and differ by `locale`: the run writes them into one entry, each into the
   * installation locale the plan maps the code onto (localisation.md, "Importers").
   */
  locale?: string;
  /** This record is the entity's original (Drupal `default_langcode`, the source post of a WordPress translation group). */
  sourceLocale?: boolean;
  /**
   * Other source ids of this same entity (at most 20): when the translations of one entity share the group's
   * `externalId`, each translation's own id (a WordPress post id, a term slug). A reference of another record to
   * one of them (`links`) resolves to this entity's entry.
   */
  aliases?: string[];
}

/** Value kinds a parse task reports per field; scaffold mode maps them to collection field types. */
/** `longtext`: plain text too long or multi-line for a text field (never sanitised: not rich text). */
export type ImportFieldKind = 'text' | 'longtext' | 'richtext' | 'number' | 'boolean' | 'date' | 'json' | 'media' | 'relation';

/** What a parse task returns (as TaskResult data) after writing the spool file. */
export interface ImportParseSummary {
  counts: Record<string, number>;
  /** entity -> field -> kind, from the values seen. */
  fields: Record<string, Record<string, ImportFieldKind>>;
  warnings: Array<{ message: string; line?: number }>;
  /** Reasons the import cannot run at all (an empty or unreadable file...). */
  blockedReasons: string[];
  /** WXR: the custom field (postmeta) keys that are not WordPress internals. */
  acfFields?: string[];
  /**
   * References between the source's records the run resolves into the target's ids after writing them: a
   * record of `entity` names, in `field`, the external id of a `to` record; the run stores the `to` record's
   * entry id (`as: 'entry'`) or its media id (`as: 'media'`) in the added field `into`. `field` keeps the
   * source's value exactly. `as: 'relation'`: `field` holds one external id (or, `many`, an ordered list of
   * them) and `into` (usually `field` itself) becomes a relation field to the `to` entity's collection, set to
   * the entries those records became, in the source's order.
   */
  links?: Array<{ entity: string; field: string; to: string; as: 'entry' | 'media' | 'relation'; into: string; many?: boolean }>;
  /**
   * References the upload cannot place itself (a single Directus item file names ids of another collection): per
   * field the distinct values (at most 1000 per field, 50 fields). Planning looks them up among the records earlier
   * imports of the same format wrote; when every value is a record of one entity in one existing collection, the
   * field becomes a relation to that collection (plan-links.ts, planEarlierLinks).
   */
  earlierRefs?: Array<{ entity: string; field: string; many?: boolean; values: string[] }>;
  /**
   * Records made from references the source names but never declares (WXR: a post's category, tag or author
   * with no `<wp:category>`, `<wp:tag>` or `<wp:author>`), per entity; they are part of `counts`.
   */
  referenced?: Record<string, number>;
  /** WXR: shortcodes (`[gallery]`, `[caption]`...) found in the content, name -> occurrences; imported as written, never expanded. */
  shortcodes?: Record<string, number>;
  /** Languages found: entity -> source language code -> records (see ImportedEntity.locale). */
  locales?: Record<string, Record<string, number>>;
  /** Records the parser could not read or refused and did not write (bad NDJSON lines, unreadable CSV records, CSV strict mode, too deep), per entity: the run counts them as failed. */
  refused?: Record<string, number>;
  /**
   * XML formats: false when the whole document was not well-formed (repaired or not). A partial profile
   * (see ImportProfile.partial) only saw the start; this corrects its `xml.wellFormed` before scoring.
   */
  wellFormed?: boolean;
}

/** Input of a parse task (a named export of the format's worker file). */
export interface ImportParseInput {
  /** The uploaded file. */
  path: string;
  filename: string;
  /** The job's folder: the only place the task may write (archive members it extracts go here). */
  workDir: string;
  /** Where to write the entities, one JSON object (ImportedEntity) per line. */
  spoolPath: string;
  profile: ImportProfile;
  /** Largest nesting depth a record may have; deeper input is refused with a warning. */
  maxDepth: number;
  /** Format hint options from the request (reserved). */
  options?: Record<string, unknown>;
}

/**
 * Import format: detects an upload from its profile and parses it (in the worker pool) into normalised
 * entities. A plugin adds one with one folder: plugin.json, index.ts (registers this) and a worker file.
 */
export interface ImportFormat {
  format: string;
  label: string;
  description?: string;
  extensions: string[];
  features: string[];
  /** 0 (not this format) to 1 (certainly this format), from the content; the extension only nudges. */
  detect(sample: ImportSample): number;
  /** Name of the worker task (an export of taskFile) that writes the spool file and returns ImportParseSummary. */
  parseTask: string;
  /** Absolute path of the compiled worker module holding parseTask. */
  taskFile: string;
}
