/** The five formats this plugin adds to the `importFormats` registry. */
import { fileURLToPath } from 'node:url';
import type { ImportFormat } from '../importers/public.js';
import { detectCsv, detectJson, detectSelfCms, detectShopHosted, detectShopPlugin } from './detect.js';

const taskFile = fileURLToPath(new URL('./parse-task.js', import.meta.url));

export const TABULAR_FORMATS: ImportFormat[] = [
  {
    format: 'csv',
    label: 'CSV / TSV',
    extensions: ['.csv', '.tsv'],
    taskFile,
    parseTask: 'parseCsv',
    detect: detectCsv,
    description:
      'Delimited text with a header row (comma, semicolon, tab or pipe; UTF-8, UTF-16 or single-byte encodings). Each row becomes a `rows` entity.',
    features: [
      'rows',
      'delimiter-detection',
      'encoding-detection',
      'typed-columns',
      'ragged-rows-warned',
      'strict-mode',
      'delta-by-id-or-content',
    ],
  },
  {
    format: 'json',
    label: 'JSON',
    extensions: ['.json'],
    taskFile,
    parseTask: 'parseJson',
    detect: detectJson,
    description:
      'An array of records, an object holding one (`{"items":[...]}`), objects keyed by id, or one record per line. Each record becomes a `rows` entity.',
    features: ['rows', 'streaming', 'depth-bounded', 'ndjson-lines', 'keyed-objects'],
  },
  {
    format: 'self_cms',
    label: 'Content package entries (NDJSON)',
    extensions: ['.ndjson'],
    taskFile,
    parseTask: 'parseSelfCms',
    detect: detectSelfCms,
    description:
      "This service's own entry files: one `{collection, _id, slug, status, data}` object per line; each collection is an entity.",
    features: ['entries', 'collections', 'status', 'line-warnings'],
  },
  {
    format: 'shop_products_hosted',
    label: 'Hosted shop products (CSV, JSON)',
    extensions: ['.csv', '.json'],
    taskFile,
    parseTask: 'parseShopHosted',
    detect: detectShopHosted,
    description:
      'Product export of a hosted shop platform: CSV with several rows per `Handle` (variants, images), or the admin API `{"products":[...]}` JSON. One `products` entity per product, variants in `variants`.',
    features: ['products', 'variants', 'images', 'commerce-preset'],
  },
  {
    format: 'shop_products_plugin',
    label: 'Shop plugin products (CSV)',
    extensions: ['.csv'],
    taskFile,
    parseTask: 'parseShopPlugin',
    detect: detectShopPlugin,
    description:
      'Product CSV of a blog platform shop plugin (`ID`, `Type`, `SKU`, `Name`, `Regular price`...). Variation rows join their parent product as `variants`.',
    features: ['products', 'variants', 'images', 'commerce-preset'],
  },
];
