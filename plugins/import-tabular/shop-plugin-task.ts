/**
 * Worker side: `shop_products_plugin`, the product CSV of a blog platform's shop plugin (`ID`, `Type`,
 * `SKU`, `Name`, `Regular price`...). One `products` entity per simple, variable, grouped or external
 * product; `variation` rows are attached to their parent (named in `Parent` by SKU or `id:<ID>`) as
 * `variants` (json). Two streamed passes: the first gathers the variations, the second writes products.
 * A variation whose parent is not in the file becomes a product of its own, with a warning.
 */
import type { ImportParseInput, ImportParseSummary } from '../importers/public.js';
import { SpoolWriter } from '../../workers/import/spool-writer.js';
import type { TaskResult } from '../../workers/tasks.js';
import { inspectCsv, normaliseHeader, readCsvRows, type CsvSource } from './csv-rows.js';
import { Columns, currencyOption, headerKey, listOf, numberOf, PRODUCT_KINDS } from './product-fields.js';
import { failure } from './task-result.js';

const flag = (text: string): boolean | null =>
  text === '1' || /^(yes|true)$/i.test(text) ? true : text === '0' || text === '-1' || /^(no|false)$/i.test(text) ? false : null;
/** Image cells list several URLs separated by commas. */
const imagesOf = (text: string) =>
  text
    .split(/,\s*(?=https?:\/\/|\/)/)
    .map((s) => s.trim())
    .filter(Boolean);

function productData(cols: Columns, cells: string[]): Record<string, unknown> {
  const get = (name: string) => cols.get(cells, name);
  const attributes = cols
    .matching(/^attribute \d+ name$/)
    .map((nameCol) => {
      const n = /(\d+)/.exec(nameCol)![1];
      return {
        name: get(nameCol),
        values: listOf(get(`Attribute ${n} value(s)`)),
        visible: flag(get(`Attribute ${n} visible`)),
        global: flag(get(`Attribute ${n} global`)),
        default: get(`Attribute ${n} default`) || null,
      };
    })
    .filter((a) => a.name);
  const downloads = cols
    .matching(/^download \d+ name$/)
    .map((nameCol) => {
      const n = /(\d+)/.exec(nameCol)![1];
      return { name: get(nameCol), url: get(`Download ${n} URL`) };
    })
    .filter((d) => d.name || d.url);
  const meta = Object.fromEntries(
    cols
      .matching(/^meta: /)
      .map((c) => [c.slice(c.indexOf(':') + 1).trim(), get(c)])
      .filter(([, v]) => v !== ''),
  );
  const images = imagesOf(get('Images'));
  const published = get('Published');
  const data: Record<string, unknown> = {
    title: get('Name') || null,
    sku: get('SKU') || null,
    description: get('Description') || get('Short description') || null,
    price: numberOf(get('Regular price')),
    stock: numberOf(get('Stock')),
    image: images[0] ?? null,
    active: published === '1',
    shortDescription: get('Short description') || null,
    salePrice: numberOf(get('Sale price')),
    saleStarts: get('Date sale price starts') || null,
    saleEnds: get('Date sale price ends') || null,
    productTypes: listOf(get('Type')),
    sourceId: get('ID') || null,
    featured: flag(get('Is featured?')),
    visibility: get('Visibility in catalog') || null,
    inStock: flag(get('In stock?')),
    backorders: get('Backorders allowed?') || null,
    taxStatus: get('Tax status') || null,
    taxClass: get('Tax class') || null,
    weight: numberOf(get('Weight (kg)')),
    length: numberOf(get('Length (cm)')),
    width: numberOf(get('Width (cm)')),
    height: numberOf(get('Height (cm)')),
    categories: listOf(get('Categories')),
    tags: listOf(get('Tags')),
    shippingClass: get('Shipping class') || null,
    images,
    groupedProducts: listOf(get('Grouped products')),
    upsells: listOf(get('Upsells')),
    crossSells: listOf(get('Cross-sells')),
    externalUrl: get('External URL') || null,
    buttonText: get('Button text') || null,
    attributes,
    downloads,
    meta,
    parent: get('Parent') || null,
  };
  return data;
}

/** `id:741` or a SKU, as the `Parent` column names a parent. */
const parentKeys = (cols: Columns, cells: string[]): string[] => {
  const id = cols.get(cells, 'ID');
  const sku = cols.get(cells, 'SKU');
  return [...(id ? [`id:${id}`] : []), ...(sku ? [`sku:${sku}`] : [])];
};
const parentRef = (text: string) => (/^id:\s*\d+$/i.test(text) ? `id:${text.replace(/^id:\s*/i, '')}` : `sku:${text}`);
const isVariation = (cols: Columns, cells: string[]) => listOf(cols.get(cells, 'Type').toLowerCase()).includes('variation');

interface VariantRow {
  line: number;
  variant: Record<string, unknown>;
  data: Record<string, unknown>;
  externalId: string;
}

function externalIdOf(cols: Columns, cells: string[], line: number): string {
  const id = cols.get(cells, 'ID');
  const sku = cols.get(cells, 'SKU');
  return id ? `id:${id}` : sku ? `sku:${sku}` : `line-${line}`;
}

async function gatherVariations(
  path: string,
  source: CsvSource,
  spool: SpoolWriter,
): Promise<{ byParent: Map<string, VariantRow[]>; parents: Set<string>; prices: Map<string, number> }> {
  const byParent = new Map<string, VariantRow[]>();
  const parents = new Set<string>();
  /** Own prices of the non-variation products, by `id:`/`sku:` key: a grouped product without a price takes its children's lowest. */
  const prices = new Map<string, number>();
  let cols: Columns | null = null;
  for await (const row of readCsvRows(path, source, (m, l) => spool.warn(m, l))) {
    if (!cols) {
      cols = new Columns(normaliseHeader(row.cells).names);
      continue;
    }
    if (!isVariation(cols, row.cells)) {
      const price = productData(cols, row.cells).price;
      for (const k of parentKeys(cols, row.cells)) {
        parents.add(k);
        if (typeof price === 'number') prices.set(k, price);
      }
      continue;
    }
    const data = productData(cols, row.cells);
    const variant = {
      sku: data.sku,
      name: data.title,
      price: data.price,
      salePrice: data.salePrice,
      stock: data.stock,
      inStock: data.inStock,
      image: data.image,
      options: Object.fromEntries((data.attributes as Array<{ name: string; values: string[] }>).map((a) => [a.name, a.values.join(', ')])),
      sourceId: data.sourceId,
      active: data.active,
    };
    const ref = parentRef(cols.get(row.cells, 'Parent'));
    const list = byParent.get(ref) ?? byParent.set(ref, []).get(ref)!;
    list.push({ line: row.line, variant, data, externalId: externalIdOf(cols, row.cells, row.line) });
  }
  return { byParent, parents, prices };
}

export async function parseShopPluginFile(input: ImportParseInput): Promise<TaskResult<ImportParseSummary>> {
  const spool = new SpoolWriter(input.spoolPath, input.maxDepth);
  spool.touch('products');
  try {
    const source = await inspectCsv(input.path, input.filename, input.options, input.profile?.delimited?.delimiter);
    const currency = currencyOption(input.options);
    const { byParent, parents, prices: ownPrices } = await gatherVariations(input.path, source, spool);
    let cols: Columns | null = null;
    const seen = new Set<string>();
    for await (const row of readCsvRows(input.path, source, () => undefined)) {
      if (!cols) {
        cols = new Columns(normaliseHeader(row.cells).names);
        if (!cols.names.some((n) => headerKey(n) === 'type')) spool.warn('no Type column: every row is read as a simple product', row.line);
        continue;
      }
      if (isVariation(cols, row.cells)) continue;
      const data = productData(cols, row.cells);
      const variantRows = parentKeys(cols, row.cells).flatMap((k) => byParent.get(k) ?? []);
      const variants = variantRows.map((v) => v.variant);
      if (variants.length) {
        const prices = variants.map((v) => v.price).filter((p): p is number => typeof p === 'number');
        if (data.price === null && prices.length) data.price = Math.min(...prices);
        const stocks = variants.map((v) => v.stock).filter((s): s is number => typeof s === 'number');
        if (data.stock === null && stocks.length) data.stock = stocks.reduce((a, b) => a + b, 0);
        if (data.image === null) data.image = variants.find((v) => v.image)?.image ?? null;
      }
      if (data.price === null && Array.isArray(data.groupedProducts) && data.groupedProducts.length) {
        const childPrices = (data.groupedProducts as string[])
          .map((ref) => ownPrices.get(parentRef(ref)))
          .filter((p): p is number => p !== undefined);
        if (childPrices.length) data.price = Math.min(...childPrices);
      }
      data.variants = variants;
      if (currency) data.currency = currency;
      let externalId = externalIdOf(cols, row.cells, row.line);
      if (seen.has(externalId)) {
        spool.warn(`product ${externalId} appears twice: this row is matched by position`, row.line);
        externalId = `line-${row.line}`;
      }
      seen.add(externalId);
      if (!data.title) spool.warn(`product ${externalId} has no Name`, row.line);
      await spool.write(
        { entity: 'products', externalId, data, status: data.active ? 'published' : 'draft', line: row.line },
        PRODUCT_KINDS,
      );
    }
    for (const [ref, rows] of byParent) {
      if (parents.has(ref)) continue;
      for (const v of rows) {
        spool.warn(`variation's parent "${ref.replace(/^sku:/, '')}" is not in the file: imported as a product of its own`, v.line);
        const externalId = seen.has(v.externalId) ? `line-${v.line}` : v.externalId;
        seen.add(externalId);
        await spool.write(
          {
            entity: 'products',
            externalId,
            data: { ...v.data, variants: [] },
            status: v.data.active ? 'published' : 'draft',
            line: v.line,
          },
          PRODUCT_KINDS,
        );
      }
    }
    if (!cols) spool.block('The file has no header row.');
    return { ok: true, value: await spool.close() };
  } catch (err) {
    spool.abort();
    return failure(err);
  }
}
