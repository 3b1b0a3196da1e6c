import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { CliCommand } from '../../kernel/sdk.js';
import type { CollectionsService } from './collections-service.js';
import type { ComponentsService } from './components-service.js';
import { typesSource } from './types-ts.js';

const HELP = `
Prints the TypeScript types of the collections and components (what GET /api/types.ts answers), or writes them
to FILE. --json prints { "source": "..." } (or { "file": "...", "bytes": N } when FILE is given). The exit code is
1 with a message in words when FILE cannot be written.

Examples:
  cms types > src/cms-types.ts
  cms types src/cms-types.ts --json
`;

function parsed(args: string[]) {
  try {
    return parseArgs({ args, allowPositionals: true, options: { help: { type: 'boolean', short: 'h' } } });
  } catch (err) {
    throw new Error(`${(err as Error).message} (cms types --help lists the options)`);
  }
}

/** `cms types [FILE]`: the TypeScript types of GET /api/types.ts, to stdout or a file (contributed to the cliCommands registry). */
export const typesCommand: CliCommand = {
  name: 'types',
  usage: '[FILE] [--json]',
  summary: 'TypeScript types of the collections and components, as GET /api/types.ts (boots, then stops)',
  help: HELP,
  async run({ kernel, json, args, out }) {
    const [file, extra] = parsed(args).positionals;
    if (extra !== undefined) throw new Error(`Unexpected argument '${extra}': cms types takes one FILE at most`);
    const source = typesSource(
      kernel.container.resolve<CollectionsService>('collections').listForRead(),
      kernel.container.resolve<ComponentsService>('components').list(),
    );
    if (!file) return out(json ? `${JSON.stringify({ source })}\n` : source);
    const path = resolve(file);
    try {
      writeFileSync(path, source);
    } catch (err) {
      throw new Error(`Cannot write ${path}: ${(err as Error).message}`);
    }
    out(json ? `${JSON.stringify({ file: path, bytes: Buffer.byteLength(source) }, null, 2)}\n` : `Wrote ${path}\n`);
  },
};
