// The dashboard layout: an ordered list of widgets with their size, stored as {id, x, y, w, h} in the
// user's preferences (PUT /api/dashboard/layout). Positions are computed by flowing the list into
// 12 columns, so the order the user chose is the order stored.
export interface LayoutItem {
  id: string;
  x: number;
  y: number;
  w: number;
  h: number;
}
export interface Cell {
  id: string;
  w: number;
  h: number;
}

export const COLUMNS = 12;
export const DEFAULT_WIDGETS = ['activity', 'system-health', 'last5-content', 'last5-media', 'cache-monitor'];

/** Stored items back into display order (row by row, left to right). */
export function toCells(items: LayoutItem[]): Cell[] {
  return [...items].sort((a, b) => a.y - b.y || a.x - b.x).map(({ id, w, h }) => ({ id, w, h }));
}

/** Display order into positions: each row fills up to 12 columns; a row is as tall as its tallest cell. */
export function toLayout(cells: Cell[]): LayoutItem[] {
  const out: LayoutItem[] = [];
  let x = 0,
    y = 0,
    rowHeight = 0;
  for (const c of cells) {
    const w = Math.min(COLUMNS, Math.max(1, c.w));
    if (x + w > COLUMNS) {
      y += rowHeight;
      x = 0;
      rowHeight = 0;
    }
    out.push({ id: c.id, x, y, w, h: Math.min(12, Math.max(1, c.h)) });
    x += w;
    rowHeight = Math.max(rowHeight, c.h);
  }
  return out;
}

export function move<T>(list: T[], from: number, to: number): T[] {
  const copy = [...list];
  const [item] = copy.splice(from, 1);
  copy.splice(Math.max(0, Math.min(copy.length, to)), 0, item!);
  return copy;
}

/**
 * Where each cell is drawn: the positions of toLayout, with the last cell of every row widened to the
 * 12th column and every cell as tall as its row, so no row ends in an empty column or leaves a hole under
 * a shorter widget. Display only: the stored layout keeps the widths and heights the user chose.
 */
export function fillRows(cells: Cell[]): LayoutItem[] {
  const rows = new Map<number, LayoutItem[]>();
  for (const item of toLayout(cells)) {
    const row = rows.get(item.y) ?? [];
    row.push(item);
    rows.set(item.y, row);
  }
  const out: LayoutItem[] = [];
  for (const row of rows.values()) {
    const height = Math.max(...row.map((r) => r.h));
    row.forEach((item, i) => out.push({ ...item, w: i === row.length - 1 ? COLUMNS - item.x : item.w, h: height }));
  }
  return out;
}
