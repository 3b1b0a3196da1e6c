import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { expect } from 'chai';
import { PROJECT_ROOT } from '../../kernel/version.js';

/**
 * Event names are spelled once: as an `export const` in the owning plugin's public.ts (e.g.
 * `export const SETUP_COMPLETED = 'setup:completed'`, or an object of names such as ENTRY_EVENTS).
 * Everywhere else, publishers and subscribers use the constant. An event name is a `<prefix>:<name>`
 * string literal in an `export const` statement of a public.ts; other string constants there are not
 * affected. The scan is textual: plugins/**\/*.ts, compared literal by literal.
 */
const PLUGINS = join(PROJECT_ROOT, 'plugins');
const NAME_LITERAL = /(['"`])([a-z][\w-]*:[\w-]+)\1/g;
const EXPORT_CONST = /^export const [A-Z][A-Z0-9_]*\s*=/;
/** A bus call with a literal name: publish('x:y', ...), subscribe<T>('x:y', ...), emit / on / once / off. */
const CALL_WITH_LITERAL = /\b(?:publish|subscribe|emit|on|once|off)\s*(?:<[^>()]*>)?\(\s*(['"`])([a-z][\w-]*:[\w-]+)\1/g;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules') return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

interface Source {
  file: string;
  lines: string[];
}

const isPublic = (file: string) => file.split(sep).length === 2 && file.endsWith(`${sep}public.ts`);

describe('event names are defined once', function () {
  const sources: Source[] = tsFiles(PLUGINS).map((path) => ({
    file: relative(PLUGINS, path),
    lines: readFileSync(path, 'utf8').split('\n'),
  }));
  /** name -> where it is defined (plugin public.ts, line number). */
  const definitions = new Map<string, Array<{ file: string; line: number }>>();
  for (const { file, lines } of sources.filter((s) => isPublic(s.file))) {
    let inConst = false; // an `export const` statement, up to the line that ends it with ';'
    lines.forEach((text, i) => {
      inConst ||= EXPORT_CONST.test(text);
      if (!inConst) return;
      for (const m of text.matchAll(NAME_LITERAL)) definitions.set(m[2]!, [...(definitions.get(m[2]!) ?? []), { file, line: i + 1 }]);
      if (text.trimEnd().endsWith(';')) inConst = false;
    });
  }
  const isDefinition = (name: string, file: string, line: number) =>
    (definitions.get(name) ?? []).some((d) => d.file === file && d.line === line);

  it("finds the event names in the plugins' public.ts files", function () {
    expect([...definitions.keys()]).to.include.members([
      'on:create',
      'content:collections-changed',
      'on:user_create',
      'auth:two-factor-failed',
      'setup:completed',
      'on:media_upload',
    ]);
  });

  it('each event name has one definition', function () {
    const twice = [...definitions]
      .filter(([, defs]) => defs.length > 1)
      .map(([name, defs]) => `'${name}' in ${defs.map((d) => `${d.file}:${d.line}`).join(', ')}`);
    expect(twice, `defined more than once:\n${twice.join('\n')}`).to.deep.equal([]);
  });

  it('no other file spells a defined event name: they import the constant', function () {
    const offenders: string[] = [];
    for (const { file, lines } of sources) {
      lines.forEach((text, i) => {
        for (const m of text.matchAll(NAME_LITERAL)) {
          if (definitions.has(m[2]!) && !isDefinition(m[2]!, file, i + 1)) offenders.push(`${file}:${i + 1}: '${m[2]}'`);
        }
      });
    }
    expect(offenders, `spelled outside its public.ts (use the exported constant):\n${offenders.join('\n')}`).to.deep.equal([]);
  });

  it('no publish / subscribe / emit / on call names an event with a string literal', function () {
    const offenders: string[] = [];
    for (const { file, lines } of sources) {
      lines.forEach((text, i) => {
        for (const m of text.matchAll(CALL_WITH_LITERAL)) offenders.push(`${file}:${i + 1}: '${m[2]}'`);
      });
    }
    expect(
      offenders,
      `event names passed as literals (define them in the owning plugin's public.ts):\n${offenders.join('\n')}`,
    ).to.deep.equal([]);
  });
});
