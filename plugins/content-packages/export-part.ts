// STUB: replaced by the export side (content-export domain, /api/content-export routes, package writer).
import type { ExportSideService, PackagesPart } from './parts.js';

export function exportPart(): PackagesPart<ExportSideService> {
  return {
    register() {},
    service: () => ({
      build: async () => {
        throw new Error('not built yet');
      },
    }),
  };
}
