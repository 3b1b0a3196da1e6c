/**
 * Locales in a backup (API decisions, "Locales": backups carry them): the rows of content_locales are in
 * config.json (`locales`; a backup made before locales has none, and leaves them as they are). A restore puts
 * the backup's whole locale list back in one operation when it differs from this installation's, first (the
 * collections' localized fields read in them), outside the transaction through the content plugin's locales
 * service (checked as every change is; every instance reloads them); its undo puts back the list that was here.
 */
import type { DataOperation, PlanDraft } from '../data-ops/public.js';
import type { LocaleDefinition, LocalesService } from '../content/public.js';
import type { Row } from './tables.js';

type Draft = { operations: DataOperation[]; warnings: PlanDraft['warnings'] };

/** The locales config.json holds (rows of content_locales), read leniently: a row it cannot read is left out. */
export function savedLocales(rows: Row[] | undefined): LocaleDefinition[] {
  const out: LocaleDefinition[] = [];
  for (const r of rows ?? []) {
    if (typeof r.code !== 'string') continue;
    const fallback = typeof r.fallback === 'string' ? r.fallback : null;
    out.push({ code: r.code, name: typeof r.name === 'string' ? r.name : r.code, isDefault: Boolean(Number(r.is_default)), fallback });
  }
  return out;
}

const same = (a: LocaleDefinition[], b: LocaleDefinition[]) =>
  JSON.stringify([...a].sort((x, y) => x.code.localeCompare(y.code))) ===
  JSON.stringify([...b].sort((x, y) => x.code.localeCompare(y.code)));

/** One operation that replaces the locales when the backup's differ from this installation's. */
export function planLocales(saved: LocaleDefinition[], here: LocalesService | undefined, draft: Draft): void {
  if (!saved.length) return;
  if (!here) {
    draft.warnings.push({ message: 'The backup holds locales but the content plugin has none here: they are left out' });
    return;
  }
  if (same(saved, here.list())) return;
  draft.operations.push({
    action: 'update',
    type: 'locales',
    target: 'locales',
    count: saved.length,
    outsideTransaction: true,
    payload: { kind: 'locales', locales: saved },
  });
}

/** Puts the backup's locales back; the undo restores the list that was here. */
export async function restoreLocales(locales: LocalesService | undefined, saved: LocaleDefinition[]): Promise<() => Promise<void>> {
  if (!locales) throw new Error('The content plugin has no locales service here');
  const before = await locales.replaceAll(saved);
  return async () => void (await locales.replaceAll(before));
}
