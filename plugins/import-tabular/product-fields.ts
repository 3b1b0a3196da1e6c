/**
 * Worker side: what the product formats share: case-insensitive header lookup, prices as numbers, the
 * optional currency, and the field kinds of the `products` entity (the commerce preset's fields:
 * title, sku, description, price, currency, stock, image, active, plus source extras).
 */
import type { ImportFieldKind } from '../importers/public.js';
import { toPlainNumber } from './csv-values.js';

export const CURRENCIES = ['EUR', 'USD', 'GBP', 'CHF', 'JPY'];

export const PRODUCT_KINDS: Record<string, ImportFieldKind> = {
  title: 'text',
  sku: 'text',
  description: 'richtext',
  price: 'number',
  currency: 'text',
  stock: 'number',
  image: 'media',
  active: 'boolean',
  images: 'json',
  variants: 'json',
  tags: 'json',
  categories: 'json',
};

export const headerKey = (name: string) => name.replace(/\s+/g, ' ').trim().toLowerCase();

/** Reads cells by header name, whatever the case. */
export class Columns {
  private readonly index = new Map<string, number>();

  constructor(readonly names: string[]) {
    names.forEach((n, i) => {
      const key = headerKey(n);
      if (!this.index.has(key)) this.index.set(key, i);
    });
  }

  has(name: string): boolean {
    return this.index.has(headerKey(name));
  }

  /** Trimmed cell, '' when absent. */
  get(cells: string[], name: string): string {
    const i = this.index.get(headerKey(name));
    return i === undefined ? '' : (cells[i] ?? '').replace(/\u0000/g, '').trim();
  }

  /** Names matching a pattern (e.g. `Attribute 1 name`), in header order. */
  matching(pattern: RegExp): string[] {
    return this.names.filter((n) => pattern.test(headerKey(n)));
  }
}

/** A price or quantity: plain decimals (`.5`, `19.99`); anything else is null. */
export const numberOf = (text: string): number | null => (text === '' ? null : toPlainNumber(text));

export const currencyOption = (options?: Record<string, unknown>): string | undefined => {
  const c = typeof options?.currency === 'string' ? options.currency.toUpperCase() : undefined;
  return c && CURRENCIES.includes(c) ? c : undefined;
};

export const listOf = (text: string, separator = ','): string[] =>
  text
    .split(separator)
    .map((s) => s.trim())
    .filter(Boolean);

/** A spreadsheet turned a long code into scientific notation (`3.65275E+11`): the digits are lost. */
export const SCIENTIFIC = /^\d+(?:\.\d+)?E\+\d+$/i;
