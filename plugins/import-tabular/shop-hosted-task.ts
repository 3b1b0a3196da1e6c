/**
 * Worker side: `shop_products_hosted`, a hosted shop's product export. CSV: several rows per product
 * keyed by `Handle` (the first row carries title and body, later rows carry more variants or images).
 * JSON: `{"products":[...]}` as the shop's admin API returns it. One `products` entity per product;
 * its variants are kept in `variants` (json) and the first variant gives `sku` and `price`; `stock` is
 * the sum of the variants' inventory; `image` is the first image URL, `images` all of them.
 */
import type { ImportedEntity, ImportParseInput, ImportParseSummary } from '../importers/public.js';
import { SpoolWriter } from '../../workers/import/spool-writer.js';
import type { TaskResult } from '../../workers/tasks.js';
import { inspectCsv, normaliseHeader, readCsvRows } from './csv-rows.js';
import { findLayout, readJsonRecords } from './json-records.js';
import { Columns, currencyOption, numberOf, PRODUCT_KINDS, SCIENTIFIC } from './product-fields.js';
import { failure } from './task-result.js';
import { isLimitError, limitsOf } from '../../workers/import/limits.js';

interface Variant {
  sku: string | null;
  price: number | null;
  compareAtPrice: number | null;
  stock: number | null;
  options: Record<string, string>;
  barcode: string | null;
  grams: number | null;
  weightUnit: string | null;
  image: string | null;
  requiresShipping?: boolean;
  taxable?: boolean;
}

interface Draft {
  handle: string;
  line: number;
  fields: Record<string, unknown>;
  optionNames: string[];
  variants: Variant[];
  images: Array<{ src: string; position: number | null; alt: string | null }>;
  active: boolean;
}

const bool = (text: string): boolean | undefined => (/^true$/i.test(text) ? true : /^false$/i.test(text) ? false : undefined);

function entityOf(draft: Draft, currency: string | undefined, spool: SpoolWriter): ImportedEntity {
  const first = draft.variants[0];
  const stocks = draft.variants.map((v) => v.stock).filter((s): s is number => s !== null);
  const imageUrls = draft.images.map((i) => i.src);
  const image = imageUrls[0] ?? draft.variants.find((v) => v.image)?.image ?? null;
  const title = (draft.fields.title as string | undefined) || draft.handle;
  if (!draft.fields.title) spool.warn(`product "${draft.handle}" has no Title: the handle is used`, draft.line);
  if (first?.price === null || first === undefined) spool.warn(`product "${draft.handle}" has no price`, draft.line);
  const data: Record<string, unknown> = {
    title,
    sku: draft.variants.find((v) => v.sku)?.sku ?? null,
    description: draft.fields.description ?? null,
    price: first?.price ?? null,
    ...(currency ? { currency } : {}),
    stock: stocks.length ? stocks.reduce((a, b) => a + b, 0) : null,
    image,
    active: draft.active,
    handle: draft.handle,
    ...Object.fromEntries(Object.entries(draft.fields).filter(([k]) => k !== 'title' && k !== 'description')),
    images: imageUrls,
    variants: draft.variants,
  };
  return { entity: 'products', externalId: draft.handle, data, status: draft.active ? 'published' : 'draft', line: draft.line };
}

/** A CSV row's cell by its column name ('' when absent). */
type Cell = (name: string) => string;

/**
 * The rows of one product are together: a new Handle writes the product read so far (a Handle seen
 * before is not merged back: its row is skipped with a warning).
 */
async function parseCsv(input: ImportParseInput, spool: SpoolWriter): Promise<void> {
  const source = await inspectCsv(input.path, input.filename, input.options, input.profile?.delimited?.delimiter);
  const currency = currencyOption(input.options);
  let cols: Columns | null = null;
  let current: Draft | null = null;
  const finished = new Set<string>();
  const flush = async () => {
    if (current) {
      finished.add(current.handle);
      await spool.write(entityOf(current, currency, spool), PRODUCT_KINDS);
    }
    current = null;
  };
  for await (const row of readCsvRows(input.path, source, (m, l) => spool.warn(m, l))) {
    if (!cols) {
      cols = new Columns(normaliseHeader(row.cells).names);
      continue;
    }
    const c = cols;
    const get: Cell = (name) => c.get(row.cells, name);
    const handle = get('Handle');
    if (!handle) {
      spool.warn('row without Handle skipped', row.line);
      continue;
    }
    if ((current as Draft | null)?.handle !== handle) {
      await flush();
      if (finished.has(handle)) {
        spool.warn(`rows of product "${handle}" are not together: this row is skipped`, row.line);
        continue;
      }
      current = newDraft(get, handle, row.line);
    }
    const draft = current as unknown as Draft;
    addVariant(draft, get, row.line, spool);
    const src = get('Image Src');
    if (src && !draft.images.some((i) => i.src === src))
      draft.images.push({ src, position: numberOf(get('Image Position')), alt: get('Image Alt Text') || null });
  }
  await flush();
  if (!cols) spool.block('The file has no header row.');
}

/** A product's first row: its title, body and the other product-level columns (empty ones left out). */
function newDraft(get: Cell, handle: string, line: number): Draft {
  const status = get('Status').toLowerCase();
  const published = bool(get('Published'));
  return {
    handle,
    line,
    optionNames: [1, 2, 3].map((n) => get(`Option${n} Name`)),
    variants: [],
    images: [],
    active: status ? status === 'active' : published !== false,
    fields: Object.fromEntries(
      Object.entries({
        title: get('Title'),
        description: get('Body (HTML)'),
        vendor: get('Vendor'),
        productType: get('Type'),
        productCategory: get('Product Category'),
        seoTitle: get('SEO Title'),
        seoDescription: get('SEO Description'),
        sourceStatus: status,
        giftCard: bool(get('Gift Card')),
        tags: get('Tags')
          ? get('Tags')
              .split(',')
              .map((t) => t.trim())
              .filter(Boolean)
          : undefined,
        published,
      }).filter(([, v]) => v !== '' && v !== undefined),
    ),
  };
}

/** A row with a SKU, a price or an option value is one more variant of the product. */
function addVariant(draft: Draft, get: Cell, line: number, spool: SpoolWriter): void {
  const optionValues = [1, 2, 3].map((n) => get(`Option${n} Value`));
  if (!get('Variant SKU') && !get('Variant Price') && !optionValues.some(Boolean)) return;
  const barcode = get('Variant Barcode');
  if (SCIENTIFIC.test(barcode))
    spool.warn(
      `barcode "${barcode}" of "${draft.handle}" is in scientific notation (changed by a spreadsheet): digits are lost, kept as text`,
      line,
    );
  const options: Record<string, string> = {};
  optionValues.forEach((v, i) => {
    if (v) options[draft.optionNames[i] || `Option${i + 1}`] = v;
  });
  draft.variants.push({
    sku: get('Variant SKU') || null,
    price: numberOf(get('Variant Price')),
    compareAtPrice: numberOf(get('Variant Compare At Price')),
    stock: numberOf(get('Variant Inventory Qty')),
    options,
    barcode: barcode || null,
    grams: numberOf(get('Variant Grams')),
    weightUnit: get('Variant Weight Unit') || null,
    image: get('Variant Image') || null,
    requiresShipping: bool(get('Variant Requires Shipping')),
    taxable: bool(get('Variant Taxable')),
  });
}

/** One product of the admin API JSON. */
function fromApi(p: Record<string, unknown>, index: number, currency: string | undefined): ImportedEntity {
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null);
  const num = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' ? numberOf(v.trim()) : null);
  const optionNames = Array.isArray(p.options) ? (p.options as Array<Record<string, unknown>>).map((o) => str(o?.name) ?? '') : [];
  const variants: Variant[] = (Array.isArray(p.variants) ? (p.variants as Array<Record<string, unknown>>) : [])
    .filter((v) => v && typeof v === 'object')
    .map((v) => {
      const options: Record<string, string> = {};
      [v.option1, v.option2, v.option3].forEach((o, i) => {
        if (str(o)) options[optionNames[i] || `Option${i + 1}`] = str(o)!;
      });
      return {
        sku: str(v.sku),
        price: num(v.price),
        compareAtPrice: num(v.compare_at_price),
        stock: num(v.inventory_quantity),
        options,
        barcode: str(v.barcode),
        grams: num(v.grams),
        weightUnit: str(v.weight_unit),
        image: null,
        ...(typeof v.requires_shipping === 'boolean' ? { requiresShipping: v.requires_shipping } : {}),
        ...(typeof v.taxable === 'boolean' ? { taxable: v.taxable } : {}),
      };
    });
  const images = (Array.isArray(p.images) ? (p.images as Array<Record<string, unknown>>) : [])
    .map((i) => str(i?.src))
    .filter((s): s is string => !!s);
  const main = p.image && typeof p.image === 'object' ? str((p.image as Record<string, unknown>).src) : null;
  if (main && !images.includes(main)) images.unshift(main);
  const status = str(p.status);
  const active = status ? status === 'active' : p.published_at !== null;
  const handle = str(p.handle) ?? str(p.id) ?? `product-${index}`;
  const stocks = variants.map((v) => v.stock).filter((s): s is number => s !== null);
  const tags = Array.isArray(p.tags)
    ? p.tags
    : typeof p.tags === 'string'
      ? p.tags
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean)
      : [];
  return {
    entity: 'products',
    externalId: str(p.id) ?? handle,
    status: active ? 'published' : 'draft',
    line: index,
    data: {
      title: str(p.title) ?? handle,
      sku: variants.find((v) => v.sku)?.sku ?? null,
      description: str(p.body_html),
      price: variants[0]?.price ?? null,
      ...(currency ? { currency } : {}),
      stock: stocks.length ? stocks.reduce((a, b) => a + b, 0) : null,
      image: images[0] ?? null,
      active,
      handle,
      vendor: str(p.vendor),
      productType: str(p.product_type),
      sourceStatus: status,
      tags,
      images,
      variants,
    },
  };
}

async function parseJson(input: ImportParseInput, spool: SpoolWriter): Promise<void> {
  const { maxLineBytes } = limitsOf(input.options);
  const layout = await findLayout(input.path, maxLineBytes);
  if (layout.kind === 'none') return spool.block(layout.reason);
  const currency = currencyOption(input.options);
  try {
    for await (const record of readJsonRecords(input.path, layout, input.maxDepth, maxLineBytes, () => undefined)) {
      if (!record.value) spool.warn(`product ${record.index}: ${record.refused}, skipped`, record.index);
      else await spool.write(fromApi(record.value, record.index, currency), PRODUCT_KINDS);
    }
  } catch (err) {
    if (isLimitError(err)) throw err;
    spool.warn(`The JSON is not well-formed, reading stopped: ${(err as Error).message}`);
  }
}

export async function parseShopHostedFile(input: ImportParseInput): Promise<TaskResult<ImportParseSummary>> {
  const spool = new SpoolWriter(input.spoolPath, input.maxDepth);
  spool.touch('products');
  try {
    const json = input.profile?.kind === 'json' || /\.json$/i.test(input.filename);
    await (json ? parseJson(input, spool) : parseCsv(input, spool));
    return { ok: true, value: await spool.close() };
  } catch (err) {
    spool.abort();
    return failure(err);
  }
}
