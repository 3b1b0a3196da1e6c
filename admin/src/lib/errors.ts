// Errors in words: the one helper every error banner and toast uses. It turns the API's error shape
// (code, message, issues with paths such as `body.fields.5.name`) into sentences for content people:
// "Field 6: the name may only contain letters and digits …". The code is never part of the text; callers
// may put it in a data-code attribute for support and tests.
import { ApiError, type ApiIssue } from './remote';
import { formatNumber, t } from '../i18n/index.svelte';

/** Messages for codes whose server message is not meant for people (the other codes' messages are sentences already). */
const BY_CODE: Record<string, string> = {
  NETWORK_ERROR: 'errors.network',
};

const LOCATIONS = new Set(['body', 'query', 'params', 'headers']);
const words = (segment: string) =>
  segment
    .replace(/^_+/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase()
    .trim();
const singular = (noun: string) =>
  noun.endsWith('ies') ? `${noun.slice(0, -3)}y` : noun.endsWith('s') && !noun.endsWith('ss') ? noun.slice(0, -1) : noun;
const capital = (text: string) => (text ? text.charAt(0).toUpperCase() + text.slice(1) : text);

/** `body.fields.5.name` -> ['field 6', 'name']; `query.page` -> ['page']; list positions count from 1. */
export function pathParts(path: string): string[] {
  const parts = path.split('.').filter(Boolean);
  if (parts.length && LOCATIONS.has(parts[0]!)) parts.shift();
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const next = parts[i + 1];
    if (next !== undefined && /^\d+$/.test(next) && !/^\d+$/.test(part)) {
      out.push(`${singular(words(part))} ${Number(next) + 1}`);
      i++;
    } else if (/^\d+$/.test(part)) out.push(t('errors.item', { n: Number(part) + 1 }));
    else out.push(words(part));
  }
  return out.filter(Boolean);
}

/** One issue in words: "Field 6: the name may only contain …" (the path's last word is left out when the message starts with it). */
export function issueInWords(issue: ApiIssue): string {
  const parts = pathParts(issue.path ?? '');
  const message = (issue.message ?? '').trim();
  const last = parts[parts.length - 1];
  if (last && new RegExp(`^(the |'|")?${last.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i').test(message)) parts.pop();
  if (!parts.length) return capital(message);
  return `${capital(parts.join(', '))}: ${message}`;
}

export interface ErrorInWords {
  /** The sentence to show. */
  message: string;
  /** One sentence per problem the server listed (validation issues), already in words. */
  details: string[];
  /** The API's error code, for a data-code attribute; never shown as text. */
  code: string;
}

/** Any error (ApiError or other) in words. */
export function errorInWords(err: unknown, fallback?: string): ErrorInWords {
  if (err instanceof ApiError) {
    const details = err.issues.map(issueInWords).filter(Boolean);
    const known = BY_CODE[err.code];
    if (known) return { message: t(known), details, code: err.code };
    // Review stages (docs/features/review-stages.md): the stages are named in the answer.
    if (err.code === 'WORKFLOW_STAGE_REQUIRED' && typeof err.body.stage === 'string' && typeof err.body.publishStage === 'string')
      return {
        message: t('errors.workflowStageRequired', { stage: err.body.stage, publishStage: err.body.publishStage }),
        details,
        code: err.code,
      };
    // Rules of roles (docs/features/roles.md): the fields or the locale a rule keeps the caller from, named.
    if (err.code === 'FIELD_FORBIDDEN' && Array.isArray(err.body.fields))
      return {
        message: t('errors.fieldForbidden', { fields: err.body.fields.join(', '), count: err.body.fields.length }),
        details,
        code: err.code,
      };
    if (err.code === 'LOCALE_FORBIDDEN' && typeof err.body.locale === 'string' && Array.isArray(err.body.allowed))
      return {
        message: t('errors.localeForbidden', { locale: err.body.locale, allowed: err.body.allowed.join(', ') }),
        details,
        code: err.code,
      };
    if (err.code === 'PAGE_TOO_DEEP' && typeof err.body.maxOffset === 'number')
      return { message: t('errors.pageTooDeep', { max: formatNumber(err.body.maxOffset) }), details: [], code: err.code };
    if (err.code === 'VALIDATION_ERROR' && details.length)
      return { message: t('errors.valuesNeedChanging', { count: details.length }), details, code: err.code };
    // The kernel's "Invalid request: body.x: …" summary repeats the issues with their paths: never shown raw.
    const message = /^Invalid request:/.test(err.message) ? t('errors.notAccepted') : err.message;
    return { message, details, code: err.code };
  }
  return {
    message: err instanceof Error && err.message ? err.message : (fallback ?? t('errors.somethingWrong')),
    details: [],
    code: 'ERROR',
  };
}

/** The same as one line: the message followed by its details. */
export function errorText(err: unknown, fallback?: string): string {
  const { message, details } = errorInWords(err, fallback);
  return details.length ? `${message} ${details.map((d) => (/[.!?]$/.test(d) ? d : `${d}.`)).join(' ')}` : message;
}

/** Why a one-time link (sign-in link, invitation) cannot be used, in the page's words; any other error as errorText. */
export function tokenErrorText(err: unknown, words: { expired: string; used: string }): string {
  const code = (err as ApiError).code;
  return code === 'TOKEN_EXPIRED' ? words.expired : code === 'TOKEN_ALREADY_CONSUMED' ? words.used : errorText(err);
}

/**
 * The issues of a refused request under one path, by the rest of their path, each as a sentence: for
 * `body.rules`, the issue `body.rules.0.fields: 'posts' has no field 'x'` is `{ '0.fields': "'posts' has no field 'x'" }`.
 * Pages show them next to the inputs those paths name (the Roles page's rules); several issues of one path are joined.
 */
export function issuesUnder(err: unknown, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(err instanceof ApiError)) return out;
  for (const issue of err.issues) {
    const path = issue.path ?? '';
    if (path !== prefix && !path.startsWith(`${prefix}.`)) continue;
    const rest = path.slice(prefix.length + 1);
    const message = capital((issue.message ?? '').trim());
    out[rest] = out[rest] ? `${out[rest]} ${message}` : message;
  }
  return out;
}
