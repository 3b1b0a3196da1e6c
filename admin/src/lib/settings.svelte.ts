// The System Settings as GET /api/settings describes them, the checks the Settings page runs before
// saving (the same rules the server applies, from the type information each setting carries: options,
// min/max, maxLength, maxItems, itemPattern), and the maintenance state the banner shows.
import { t } from '../i18n/index.svelte';
import { remote, type RouteResponse } from './remote';

export type Setting = RouteResponse<'GET /api/settings'>[number];

/** Whether MAINTENANCE_MODE is on for this tenant (null: unknown, e.g. the caller cannot read settings). */
export const maintenance = $state<{ on: boolean | null }>({ on: null });

/** Reads the settings once more and updates the maintenance state; returns them (null when they cannot be read). */
export async function loadSettings(): Promise<Setting[] | null> {
  try {
    const settings = await remote('GET /api/settings');
    maintenance.on = settings.find((s) => s.key === 'MAINTENANCE_MODE')?.value === true;
    return settings;
  } catch {
    return null;
  }
}

/** After a save: the answered settings update the maintenance state at once. */
export function noteSaved(changed: Setting[]): void {
  const mode = changed.find((s) => s.key === 'MAINTENANCE_MODE');
  if (mode) maintenance.on = mode.value === true;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The value to send for what the form holds, or an error in plain words. `raw` is what the control
 * holds: a boolean, the text of a number or text field, or a list of texts.
 */
export function checkValue(s: Setting, raw: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  const fail = (error: string) => ({ ok: false as const, error });
  if (s.type === 'boolean') return { ok: true, value: raw === true };
  if (s.type === 'integer' || s.type === 'number') {
    const text = String(raw ?? '').trim();
    if (text === '') return fail(t('settings.check.number'));
    const n = Number(text);
    if (!Number.isFinite(n)) return fail(t('settings.check.number'));
    if (s.type === 'integer' && !Number.isInteger(n)) return fail(t('settings.check.integer'));
    if (s.min !== undefined && n < s.min) return fail(`Enter ${s.min} or more.`);
    if (s.max !== undefined && n > s.max) return fail(`Enter ${s.max} or less.`);
    return { ok: true, value: n };
  }
  if (s.type === 'string-list') {
    const items = (Array.isArray(raw) ? raw : []).map((v) => String(v).trim());
    if (items.some((v) => v === '')) return fail(t('settings.check.emptyItem'));
    if (s.maxItems !== undefined && items.length > s.maxItems) return fail(t('settings.check.maxItems', { max: s.maxItems }));
    const long = items.find((v) => s.maxLength !== undefined && v.length > s.maxLength);
    if (long) return fail(`"${long.slice(0, 40)}" is longer than ${s.maxLength} characters.`);
    if (s.itemPattern) {
      const pattern = new RegExp(s.itemPattern);
      const bad = items.find((v) => !pattern.test(v));
      if (bad)
        return fail(
          `"${bad.slice(0, 60)}" is not in the expected form${s.key === 'MEDIA_ALLOWED_TYPES' ? ' (a file type such as image/png or image/*)' : ''}.`,
        );
    }
    return { ok: true, value: items };
  }
  const text = String(raw ?? '').trim();
  if (text === '') {
    if (s.nullable) return { ok: true, value: null };
    if (s.type === 'email' || s.type === 'enum') return { ok: true, value: text };
    if (s.type === 'string' || s.type === 'text') return { ok: true, value: text };
  }
  if (s.maxLength !== undefined && text.length > s.maxLength)
    return fail(t('settings.check.maxLength', { max: s.maxLength, length: text.length }));
  if (s.type === 'enum' && !(s.options ?? []).includes(text)) return fail(t('settings.check.enum'));
  if (s.type === 'email' && text !== '' && !EMAIL.test(text)) return fail(t('settings.check.email'));
  if (s.type === 'url' && !/^https?:\/\/[^\s/]+/i.test(text)) return fail(t('settings.check.url'));
  return { ok: true, value: text };
}
