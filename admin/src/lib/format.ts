// Numbers, sizes, durations and dates in words, as the pages show them: in the UI's language (Intl with
// the chosen locale, words from the catalogue).
import { formatDate, formatNumber, formatRelative, t } from '../i18n/index.svelte';

/** "4 min 10 s" for a number of seconds. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  const m = Math.floor(s / 60);
  if (m >= 60) return t('common.duration.hours', { h: Math.floor(m / 60), min: m % 60 });
  return m ? t('common.duration.minutes', { min: m, s: s % 60 }) : t('common.duration.seconds', { s });
}

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '-';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = bytes,
    i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  const digits = v < 10 && i ? 1 : 0;
  return `${formatNumber(v, { minimumFractionDigits: digits, maximumFractionDigits: digits })} ${units[i]}`;
}

/** "3 minutes ago", "vor 2 Stunden" or the date. */
export function ago(iso: string | null | undefined): string {
  if (!iso) return t('common.never');
  const s = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  if (s < 60) return t('common.justNow');
  if (s < 3600) return formatRelative(-Math.floor(s / 60), 'minute');
  if (s < 86400) return formatRelative(-Math.floor(s / 3600), 'hour');
  if (s < 30 * 86400) return formatRelative(-Math.floor(s / 86400), 'day');
  return formatDate(iso);
}
