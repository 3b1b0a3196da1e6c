/**
 * Locales as configuration (API decisions, "Locales": configuration promotion carries them): one resource,
 * `locales` = {locales: [{code, name, isDefault, fallback}]}, promoted first (collections' localized fields
 * read in them). The whole list is one resource because its parts depend on each other (a fallback names
 * another locale, exactly one is the default): it is replaced at once through the content plugin's locales
 * service, which checks it (400 for a cycle, an unknown fallback, not one default) and announces the change to
 * every instance. It keeps its own rows (no transaction of ours), so the operation runs outside the apply
 * transaction and is undone by the opposite change, as components are. Never deleted.
 */
import { checkFallbacks, type LocaleDefinition, type LocalesService } from '../content/public.js';
import type { ResourceAdapter } from './resources.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const NAME = 'locales';

const localesOf = (data: Record<string, unknown>): LocaleDefinition[] =>
  (data.locales as LocaleDefinition[]).map((l) => ({ code: l.code, name: l.name, isDefault: l.isDefault, fallback: l.fallback ?? null }));

export function localeAdapter(locales: () => LocalesService | undefined): ResourceAdapter {
  const service = (): LocalesService => {
    const found = locales();
    if (!found) throw new Error('The content plugin has no locales service');
    return found;
  };
  const write = async (name: string, data: Record<string, unknown>) => {
    if (name !== NAME) throw new Error(`Unknown locale resource '${name}'`);
    await service().replaceAll(localesOf(data));
    return NAME;
  };
  return {
    type: 'locale',
    label: 'Locales',
    readOnlyReason: null,
    outsideTransaction: true,
    available: () => locales() !== undefined,
    async read() {
      const list = await service().fresh();
      return [
        {
          type: 'locale',
          name: NAME,
          uuid: null,
          id: NAME,
          data: { locales: list as unknown },
          protectedReason: 'locales are never deleted',
        },
      ];
    },
    check(data) {
      if (!isObject(data) || !Array.isArray(data.locales) || data.locales.length === 0 || data.locales.length > 100)
        return 'data must be {locales: [1-100 locales]}';
      const ok = data.locales.every(
        (l) =>
          isObject(l) &&
          typeof l.code === 'string' &&
          typeof l.name === 'string' &&
          typeof l.isDefault === 'boolean' &&
          (l.fallback === null || l.fallback === undefined || typeof l.fallback === 'string'),
      );
      if (!ok) return 'data.locales must be {code, name, isDefault, fallback} each';
      try {
        checkFallbacks(localesOf(data));
      } catch (err) {
        return (err as Error).message;
      }
      return null;
    },
    create: async (_tenantId, name, _uuid, data) => write(name, data),
    update: async (_tenantId, _current, name, data) => write(name, data),
    async remove() {
      throw new Error('the locales are never deleted');
    },
    async invalidate() {
      // The locales service reloads them and announces the change itself.
    },
  };
}
