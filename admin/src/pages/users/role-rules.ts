// The rules of a role as the Roles page edits them (API decisions, "Roles and rules"; docs/features/roles.md):
// one draft per rule, with its `where` as the text the advanced box shows, so a filter that does not parse
// stays in the form (named next to its cell) and is never sent. Back to the API's rules in the same order, so
// the server's issues (`body.rules.<i>.<part>`) find their cell again.
import type { ApiSchemas } from '../../lib/remote';
import { t } from '../../i18n/index.svelte';

export type Rule = ApiSchemas['RoleRule'];
export const RULE_ACTIONS = ['read', 'create', 'update', 'delete', 'publish'] as const;
export type RuleAction = (typeof RULE_ACTIONS)[number];

/** A rule in the form: `whereText` empty = every entry. */
export interface RuleDraft {
  action: RuleAction;
  collection: string;
  fields: string[];
  whereText: string;
  locales: string[];
}

/** The one-click conditions: which entries a rule covers. */
export const WHERE_PRESETS = {
  all: null,
  own: { createdBy: '$user' },
  published: { status: 'published' },
  ownOrPublished: { $or: [{ createdBy: '$user' }, { status: 'published' }] },
} as const;
export type WherePreset = keyof typeof WHERE_PRESETS | 'custom';

const text = (where: unknown) => (where ? JSON.stringify(where, null, 2) : '');

export const toDraft = (r: Rule): RuleDraft => ({
  action: r.action,
  collection: r.collection,
  fields: [...(r.fields ?? [])],
  whereText: text(r.where),
  locales: [...(r.locales ?? [])],
});

export const newDraft = (collection: string, action: RuleAction): RuleDraft => ({
  action,
  collection,
  fields: [],
  whereText: '',
  locales: [],
});

/** The where text of a preset, as the box shows it. */
export const presetText = (p: Exclude<WherePreset, 'custom'>) => text(WHERE_PRESETS[p]);

/** Which preset a where text is (spacing aside), or 'custom'. */
export function presetOf(whereText: string): WherePreset {
  if (!whereText.trim()) return 'all';
  let parsed: unknown;
  try {
    parsed = JSON.parse(whereText);
  } catch {
    return 'custom';
  }
  const same = (v: unknown) => JSON.stringify(v) === JSON.stringify(parsed);
  for (const key of ['own', 'published', 'ownOrPublished'] as const) if (same(WHERE_PRESETS[key])) return key;
  return 'custom';
}

/** Problems of the rules by position and part (`where`, `fields`, … or '' for the rule as a whole), in words. */
export type RuleIssues = Record<number, Record<string, string>>;

/**
 * The drafts as the API's rules; a where text that is not a JSON object is a problem here (`local`), in the
 * words of `notObject`, and the rules are not to be sent.
 */
export function toRules(drafts: RuleDraft[], notObject: (reason: string) => string): { rules: Rule[]; local: RuleIssues } {
  const local: RuleIssues = {};
  const rules = drafts.map((d, i) => {
    const rule: Rule = { action: d.action, collection: d.collection };
    if (d.fields.length) rule.fields = [...d.fields];
    if (d.locales.length) rule.locales = [...d.locales];
    if (d.whereText.trim()) {
      try {
        const where = JSON.parse(d.whereText) as unknown;
        if (!where || typeof where !== 'object' || Array.isArray(where)) throw new Error('{ … }');
        rule.where = where as Record<string, unknown>;
      } catch (err) {
        local[i] = { where: notObject((err as Error).message) };
      }
    }
    return rule;
  });
  return { rules, local };
}

/** The positions of the drafts for one cell of the matrix. */
export const cellRules = (drafts: RuleDraft[], collection: string, action: RuleAction): number[] =>
  drafts.flatMap((d, i) => (d.collection === collection && d.action === action ? [i] : []));

/** The server's issues under `body.rules` (errors.ts issuesUnder: `{'0.fields': '…'}`) by rule and part. */
export function groupRuleIssues(under: Record<string, string>): RuleIssues {
  const out: RuleIssues = {};
  for (const [path, message] of Object.entries(under)) {
    const [index, part = ''] = path.split('.');
    const i = Number(index);
    if (!Number.isInteger(i)) continue;
    out[i] = { ...out[i], [part]: out[i]?.[part] ? `${out[i][part]} ${message}` : message };
  }
  return out;
}

/** A collection as the rules matrix offers it: its fields for the fields checkboxes. */
export interface RuleCollection {
  name: string;
  label: string;
  fields: Array<{ name: string; label: string }>;
}

/**
 * One rule in words, for the explain dialog: "Change in posts: only the fields title, body; only their own
 * entries; every locale" (a condition that is not one of the presets is shown as its JSON).
 */
export function ruleInWords(r: Rule): string {
  const collection = r.collection === '*' ? t('roles.rules.everyCollection') : r.collection;
  const preset = presetOf(r.where ? JSON.stringify(r.where) : '');
  const parts = [
    r.fields?.length ? t('roles.rules.words.fields', { fields: r.fields.join(', ') }) : t('roles.rules.words.allFields'),
    preset === 'custom' ? t('roles.rules.words.where', { where: JSON.stringify(r.where) }) : t(`roles.rules.words.preset.${preset}`),
    r.locales?.length ? t('roles.rules.words.locales', { locales: r.locales.join(', ') }) : t('roles.rules.words.allLocales'),
  ];
  return t('roles.rules.words.rule', { action: t(`roles.rules.action.${r.action}`), collection, parts: parts.join('; ') });
}
