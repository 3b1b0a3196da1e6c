// STUB: replaced by the import side (content-import domain, /api/content-import routes, identity matching).
import type { DataDomainDefinition } from '../data-ops/public.js';
import type { ImportSideService, PackagesPart } from './parts.js';

export function importPart(): PackagesPart<ImportSideService> {
  return {
    register() {},
    service: () => ({
      receive: async () => {
        throw new Error('not built yet');
      },
      importDomain: null as unknown as DataDomainDefinition<unknown>,
    }),
  };
}
