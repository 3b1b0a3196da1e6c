import { ContractError } from '../errors.js';

/** What a member of a registry entry must be: a JS type, a list of strings, or one of fixed values. */
export type MemberKind = 'function' | 'string' | 'number' | 'boolean' | 'object' | 'string[]' | readonly string[];

export interface Contract {
  required: Record<string, MemberKind>;
  optional?: Record<string, MemberKind>;
}

function describe(kind: MemberKind): string {
  return Array.isArray(kind) ? `one of ${kind.map((k) => `'${k}'`).join(', ')}` : (kind as string);
}

function matches(value: unknown, kind: MemberKind): boolean {
  if (Array.isArray(kind)) return typeof value === 'string' && kind.includes(value);
  switch (kind) {
    case 'string[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    default:
      return typeof value === kind;
  }
}

/**
 * A small extension point: entries keyed by one field, each checked against a contract when added,
 * with errors that name the entry and the missing member ("Storage driver 'object_store' does not
 * implement delete()"). Duplicate keys name both owners.
 */
export class Registry<T extends object> {
  private readonly entries = new Map<string, { item: T; owner: string }>();

  constructor(
    readonly kind: string,
    readonly keyField: keyof T & string,
    readonly contract: Contract,
  ) {}

  add(item: T, owner = 'kernel'): T {
    const key = (item as any)?.[this.keyField];
    if (typeof key !== 'string' || key.length === 0) {
      throw new ContractError(`${this.kind} added by plugin '${owner}' has no ${this.keyField} (string)`);
    }
    const label = `${this.kind} '${key}'`;
    for (const [member, kind] of Object.entries(this.contract.required)) {
      const value = (item as any)[member];
      if (kind === 'function' && typeof value !== 'function') throw new ContractError(`${label} does not implement ${member}()`);
      if (value === undefined) throw new ContractError(`${label} is missing ${member} (${describe(kind)})`);
      if (!matches(value, kind)) throw new ContractError(`${label} has an invalid ${member}: expected ${describe(kind)}`);
    }
    for (const [member, kind] of Object.entries(this.contract.optional ?? {})) {
      const value = (item as any)[member];
      if (value !== undefined && !matches(value, kind)) {
        throw new ContractError(`${label} has an invalid ${member}: expected ${describe(kind)}`);
      }
    }
    const existing = this.entries.get(key);
    if (existing) throw new ContractError(`${label} is added by plugin '${owner}' but plugin '${existing.owner}' already added it`);
    this.entries.set(key, { item, owner });
    return item;
  }

  get(key: string): T | undefined {
    return this.entries.get(key)?.item;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  list(): T[] {
    return [...this.entries.values()].map((e) => e.item);
  }

  keys(): string[] {
    return [...this.entries.keys()];
  }

  ownerOf(key: string): string | undefined {
    return this.entries.get(key)?.owner;
  }

  keysOwnedBy(owner: string): string[] {
    return [...this.entries].filter(([, e]) => e.owner === owner).map(([k]) => k);
  }
}
