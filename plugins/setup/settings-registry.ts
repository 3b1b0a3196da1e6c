import { z } from 'zod';
import { BootError } from '../../kernel/sdk.js';
import {
  PRIVATE_SETTINGS,
  PUBLIC_SETTINGS,
  SETTING_GROUPS,
  type SettingDefault,
  type SettingMeta,
  type SettingType,
} from './settings-catalogue.js';

/** A setting a plugin declares (container key `settingsCatalogue`, at register or boot): it then appears in GET/PATCH /api/settings. */
export interface SettingDeclaration extends SettingMeta {
  /** Upper-case with underscores, e.g. MAINTENANCE_MESSAGE. */
  key: string;
  /** The value in force while nobody has set one (no row is written for it). */
  default: unknown;
  description: string;
}

/** One setting as the registry knows it: where it comes from and whether seeding wrote it. */
export interface SettingDefinition extends SettingMeta {
  key: string;
  default: unknown;
  description: string;
  /** Seeded public (false) or private (true) setting; declared ones are private when secret. */
  isPrivate: boolean;
  /** The plugin that declared it, or `setup` for the seeded catalogue. */
  owner: string;
}

const KEY = /^[A-Z][A-Z0-9_]{1,63}$/;
const TYPES: readonly SettingType[] = ['string', 'text', 'email', 'url', 'integer', 'number', 'boolean', 'enum', 'string-list'];
const GROUPS = new Set<string>(SETTING_GROUPS.map((g) => g.id));

const fromDefault = (d: SettingDefault, isPrivate: boolean): SettingDefinition => {
  const { value, ...rest } = d;
  return { ...rest, default: value, isPrivate, owner: 'setup' };
};

/**
 * Every setting the installation knows: the seeded catalogue and those plugins declare. Checks each
 * declaration's shape (naming what is wrong) and builds the validation PATCH applies, from the same
 * declared type information GET answers (so the Settings page validates by the same rules).
 */
export class SettingsRegistry {
  private readonly defs = new Map<string, SettingDefinition>();

  constructor() {
    for (const d of PUBLIC_SETTINGS) this.defs.set(d.key, fromDefault(d, false));
    for (const d of PRIVATE_SETTINGS) this.defs.set(d.key, fromDefault(d, true));
  }

  /** Adds a plugin's setting; a bad or duplicate declaration stops the boot with the plugin and key named. */
  declare(owner: string, declaration: SettingDeclaration): void {
    const where = `Setting '${declaration.key}' (plugin '${owner}')`;
    if (!KEY.test(declaration.key ?? '')) throw new BootError(`${where}: the key must be upper-case letters, digits and _`);
    const existing = this.defs.get(declaration.key);
    if (existing) throw new BootError(`${where} is already declared by plugin '${existing.owner}'`);
    if (!TYPES.includes(declaration.type)) throw new BootError(`${where}: unknown type '${declaration.type}' (one of ${TYPES.join(', ')})`);
    if (!GROUPS.has(declaration.group)) throw new BootError(`${where}: unknown group '${declaration.group}'`);
    if (!declaration.label?.trim()) throw new BootError(`${where}: a label is required`);
    if (declaration.type === 'enum' && !declaration.options?.length) throw new BootError(`${where}: an enum needs options`);
    const def: SettingDefinition = { ...declaration, isPrivate: declaration.secret === true, owner };
    if (declaration.default !== null || !declaration.nullable) {
      const checked = valueSchema(def).safeParse(declaration.default);
      if (!checked.success) throw new BootError(`${where}: its default does not fit its own type (${checked.error.issues[0]?.message})`);
    }
    this.defs.set(def.key, def);
  }

  get(key: string): SettingDefinition | undefined {
    return this.defs.get(key);
  }

  list(): SettingDefinition[] {
    return [...this.defs.values()];
  }

  /** The catalogue's own settings with their defaults, public ones first: what seeding writes (the kernel's store). */
  seeded(): Array<{ key: string; value: unknown; isPrivate: boolean }> {
    return this.list()
      .filter((d) => d.owner === 'setup')
      .map((d) => ({ key: d.key, value: d.default, isPrivate: d.isPrivate }));
  }
}

/** Text fields of a nullable setting: empty or blank text means "no value" (stored as null). */
const blankToNull = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? null : v);

/** The zod schema of one setting's value, from its declared type and bounds. */
export function valueSchema(def: SettingMeta): z.ZodType {
  let schema: z.ZodType;
  const max = def.maxLength ?? 4096;
  /** Text, email and url values: trimmed, at most maxLength characters. */
  const text = z.string({ error: 'must be text' }).trim().max(max, `at most ${max} characters`);
  switch (def.type) {
    case 'boolean':
      schema = z.boolean({ error: 'must be true or false' });
      break;
    case 'integer':
    case 'number': {
      let n =
        def.type === 'integer'
          ? z.number({ error: 'must be a whole number' }).int('must be a whole number')
          : z.number({ error: 'must be a number' });
      if (def.min !== undefined) n = n.min(def.min, `must be at least ${def.min}`);
      if (def.max !== undefined) n = n.max(def.max, `must be at most ${def.max}`);
      schema = n;
      break;
    }
    case 'enum':
      schema = z.enum(def.options as [string, ...string[]], { error: `must be one of: ${(def.options ?? []).join(', ')}` });
      break;
    case 'string-list': {
      let item = z
        .string({ error: 'each item must be text' })
        .trim()
        .min(1, 'an item is empty')
        .max(max, `an item is longer than ${max} characters`);
      if (def.itemPattern) {
        const pattern = new RegExp(def.itemPattern);
        item = item.refine((v) => pattern.test(v), { message: 'an item does not have the expected form' }) as unknown as typeof item;
      }
      schema = z.array(item, { error: 'must be a list of text items' }).max(def.maxItems ?? 100, `at most ${def.maxItems ?? 100} items`);
      break;
    }
    case 'email':
      schema = text.pipe(z.union([z.literal(''), z.email('must be an email address')]));
      break;
    case 'url':
      schema = text.refine((v) => /^https?:\/\/[^\s/]+/i.test(v) && URL.canParse(v), 'must be an http:// or https:// address');
      break;
    default:
      schema = text;
  }
  return def.nullable ? z.preprocess(blankToNull, schema.nullable()) : schema;
}
