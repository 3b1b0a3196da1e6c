import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CliCommand } from '../../kernel/sdk.js';
import type { CollectionsService } from './collections-service.js';
import type { ComponentsService } from './components-service.js';
import { typesSource } from './types-ts.js';

/** `cms types [FILE]`: the TypeScript types of GET /api/types.ts, to stdout or a file (contributed to the cliCommands registry). */
export const typesCommand: CliCommand = {
  name: 'types',
  usage: '[FILE]',
  summary: 'TypeScript types of the collections and components, as GET /api/types.ts (boots, then stops)',
  async run({ kernel, args, out }) {
    const source = typesSource(
      kernel.container.resolve<CollectionsService>('collections').listForRead(),
      kernel.container.resolve<ComponentsService>('components').list(),
    );
    const [file] = args;
    if (!file) return out(source);
    try {
      writeFileSync(resolve(file), source);
    } catch (err) {
      throw new Error(`Cannot write ${resolve(file)}: ${(err as Error).message}`);
    }
    out(`Wrote ${resolve(file)}\n`);
  },
};
