import type { Identity } from '../../kernel/sdk.js';
import type { TokensService } from '../auth/public.js';

const KEEP_MS = 60_000;
const MAX = 1000;

/**
 * The names of API keys by id, read through the auth plugin (the key's own listing: its creator's keys) and kept a
 * minute, at most 1,000: audit entries and agent sessions carry the key's name.
 */
export class KeyNames {
  private readonly cache = new Map<string, { name: string; at: number }>();

  constructor(private readonly tokens: () => TokensService) {}

  async of(identity: Identity): Promise<{ keyId: string; keyName: string }> {
    const keyId = String(identity.meta?.apiKeyId ?? '');
    const now = Date.now();
    const kept = this.cache.get(keyId);
    if (kept && now - kept.at < KEEP_MS) return { keyId, keyName: kept.name };
    const found = (await this.tokens().listApiKeys(identity)).find((k) => k._id === keyId);
    const name = found?.name ?? keyId;
    if (this.cache.size >= MAX) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(keyId, { name, at: now });
    return { keyId, keyName: name };
  }
}
