#!/usr/bin/env node
// Lists the licence of every package in the runtime (non-dev) dependency tree of package-lock.json and fails
// on a copyleft, unknown or missing licence. The project is MIT: what `npm ci --omit=dev` installs must allow
// that. Usage: node scripts/check-licences.mjs [--root <folder>] [--quiet]
// Exit code 0: all allowed; 1: at least one problem (listed); 2: the lockfile cannot be read.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Permissive licences (SPDX ids) whose terms allow use in an MIT project. */
export const ALLOWED = new Set([
  '0BSD',
  'Apache-2.0',
  'BlueOak-1.0.0',
  'BSD-1-Clause',
  'BSD-2-Clause',
  'BSD-3-Clause',
  'BSD-3-Clause-Clear',
  'CC-BY-3.0',
  'CC-BY-4.0',
  'CC0-1.0',
  'ISC',
  'MIT',
  'MIT-0',
  'Python-2.0',
  'Unlicense',
  'W3C',
  'WTFPL',
  'X11',
  'Zlib',
]);

/** Copyleft families, named as such in the report (anything else not allowed is "not on the allow-list"). */
const COPYLEFT = /^(A?GPL|LGPL|SSPL|EUPL|OSL|CPAL|RPL|CC-BY-(NC-)?SA|CC-BY-NC|MS-RL|Sleepycat|QPL|CECILL)/i;

/**
 * Reviewed exceptions: weak-copyleft libraries the runtime loads unmodified as separate, replaceable
 * packages (npm installs them from the registry; this project neither changes nor bundles them), which is
 * what LGPL allows an MIT program to do. Matched on the package name and its exact licence text, so a new
 * package or a changed licence fails the check until someone reviews it.
 */
export const EXCEPTIONS = [
  {
    name: /^mariadb$/,
    licence: 'LGPL-2.1-or-later',
    reason: 'the MariaDB client library, used unmodified through its public API (dynamic use of an LGPL library)',
  },
  {
    name: /^@img\/sharp-(libvips-[a-z0-9]+-[a-z0-9]+|win32-[a-z0-9]+|wasm32)$/,
    licence: /^(LGPL-3\.0-or-later|Apache-2\.0 AND LGPL-3\.0-or-later( AND MIT)?)$/,
    reason: "sharp's prebuilt libvips (LGPL-3.0), a shared library loaded unmodified by sharp, replaceable by the user's own build",
  },
];

/**
 * Parses an SPDX expression into a tree: {id} | {and:[a,b]} | {or:[a,b]}. Accepts parentheses, AND, OR,
 * WITH <exception> (kept with the licence it qualifies) and the "+" suffix. Returns null for text that is
 * not an expression (e.g. "SEE LICENSE IN LICENSE.txt").
 */
export function parseSpdx(text) {
  const tokens = String(text)
    .replace(/([()])/g, ' $1 ')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  let i = 0;
  const peek = () => tokens[i];
  function primary() {
    const t = tokens[i++];
    if (t === undefined) throw new Error('end');
    if (t === '(') {
      const inner = or();
      if (tokens[i++] !== ')') throw new Error('paren');
      return inner;
    }
    if (!/^[A-Za-z0-9.+-]+$/.test(t) || /^(AND|OR|WITH)$/i.test(t)) throw new Error('id');
    const node = { id: t.replace(/\+$/, '') };
    if (peek() && /^WITH$/i.test(peek())) {
      i++;
      node.exception = tokens[i++];
      if (!node.exception) throw new Error('with');
    }
    return node;
  }
  /** operand (OPERATOR operand)*, left-associative: {[key]: [left, right]}. */
  const chain = (operator, key, operand) => () => {
    let left = operand();
    while (peek() && operator.test(peek())) {
      i++;
      left = { [key]: [left, operand()] };
    }
    return left;
  };
  const and = chain(/^AND$/i, 'and', primary);
  const or = chain(/^OR$/i, 'or', and);
  try {
    if (tokens.length === 0) return null;
    const tree = or();
    return i === tokens.length ? tree : null;
  } catch {
    return null;
  }
}

const canonical = new Map([...ALLOWED].map((id) => [id.toLowerCase(), id]));
/** Old or loose spellings seen in package.json files, mapped to SPDX ids. */
const ALIASES = new Map([
  ['apache 2.0', 'Apache-2.0'],
  ['apache2', 'Apache-2.0'],
  ['apache-2', 'Apache-2.0'],
  ['bsd', 'BSD-2-Clause'],
  ['mit/x11', 'MIT'],
  ['public domain', 'Unlicense'],
]);

/** Whether an SPDX expression allows use: an id on the allow-list; OR needs one side, AND needs both. */
export function allows(expression) {
  const tree = parseSpdx(ALIASES.get(String(expression).toLowerCase()) ?? expression);
  if (!tree) return false;
  const walk = (node) => {
    if (node.or) return walk(node.or[0]) || walk(node.or[1]);
    if (node.and) return walk(node.and[0]) && walk(node.and[1]);
    return canonical.has(node.id.toLowerCase());
  };
  return walk(tree);
}

/** The licence ids of a parsed expression (none for text that did not parse). */
const idsOf = (node) => (!node ? [] : node.id ? [node.id] : [...idsOf((node.and ?? node.or)[0]), ...idsOf((node.and ?? node.or)[1])]);

/** A package.json licence field in any of its historic shapes, as one expression (or ''). */
export function licenceText(pkg) {
  const value = pkg?.license ?? pkg?.licenses;
  if (typeof value === 'string') return value.trim();
  if (Array.isArray(value)) {
    const ids = value.map((v) => (typeof v === 'string' ? v : v?.type)).filter((v) => typeof v === 'string' && v.trim());
    return ids.length === 0 ? '' : ids.length === 1 ? ids[0].trim() : `(${ids.map((v) => v.trim()).join(' OR ')})`;
  }
  if (value && typeof value === 'object' && typeof value.type === 'string') return value.type.trim();
  return '';
}

/**
 * The runtime tree of a lockfile (v2/v3 "packages"): from the root's dependencies and optional dependencies,
 * each package's dependencies, optional and peer dependencies, resolved the way Node resolves them (the
 * nearest node_modules folder up from the package). Returns the lockfile locations, sorted.
 */
export function runtimeTree(lock) {
  const packages = lock?.packages;
  if (!packages || typeof packages !== 'object' || !packages[''])
    throw new Error('package-lock.json has no "packages" (lockfile v2 or later is needed)');
  const resolve = (from, name) => {
    let dir = from;
    for (;;) {
      const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
      if (packages[candidate]) return candidate;
      if (!dir) return null;
      const up = dir.lastIndexOf('/node_modules/');
      dir = up === -1 ? '' : dir.slice(0, up);
    }
  };
  const seen = new Set();
  const missing = [];
  const queue = [''];
  while (queue.length > 0) {
    const at = queue.shift();
    const entry = packages[at];
    const names = [
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys(entry.optionalDependencies ?? {}),
      ...(at === '' ? [] : Object.keys(entry.peerDependencies ?? {})),
    ];
    for (const name of new Set(names)) {
      const found = resolve(at, name);
      if (!found) {
        const optional = entry.optionalDependencies?.[name] !== undefined || entry.peerDependenciesMeta?.[name]?.optional;
        if (!optional) missing.push(`${name} (needed by ${at || 'the project'})`);
        continue;
      }
      const target = packages[found].link ? packages[found].resolved : found;
      if (target && !seen.has(target) && packages[target]) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return { locations: [...seen].sort(), missing };
}

/** The package name of a lockfile location (node_modules/a/node_modules/@b/c → @b/c). */
export const nameOf = (location, entry) => entry?.name ?? location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length);

/** Checks a project folder; returns {rows:[{name,version,licence,status,note}], problems:[...]}. */
export function checkLicences(root) {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const { locations, missing } = runtimeTree(lock);
  const rows = [];
  const problems = missing.map((m) => `not in the lockfile: ${m}`);
  for (const location of locations) {
    const entry = lock.packages[location];
    const name = nameOf(location, entry);
    let licence = typeof entry.license === 'string' ? entry.license.trim() : '';
    let source = 'lockfile';
    if (!licence) {
      const manifest = join(root, ...location.split(posix.sep), 'package.json');
      if (existsSync(manifest)) {
        try {
          licence = licenceText(JSON.parse(readFileSync(manifest, 'utf8')));
          source = 'package.json';
        } catch {
          licence = '';
        }
      }
    }
    const row = { name, version: entry.version ?? '', licence: licence || '(none)', source, status: 'allowed', note: '' };
    if (!licence) {
      row.status = 'unknown';
      row.note = 'no licence in the lockfile nor in the installed package.json';
    } else if (!allows(licence)) {
      const exception = EXCEPTIONS.find(
        (e) => e.name.test(name) && (typeof e.licence === 'string' ? e.licence === licence : e.licence.test(licence)),
      );
      if (exception) {
        row.status = 'reviewed';
        row.note = exception.reason;
      } else {
        row.status = idsOf(parseSpdx(licence)).some((id) => COPYLEFT.test(id)) ? 'copyleft' : 'not allowed';
        row.note = row.status === 'copyleft' ? 'copyleft licence' : 'not on the allow-list of permissive licences';
      }
    }
    if (row.status === 'unknown' || row.status === 'copyleft' || row.status === 'not allowed')
      problems.push(`${name}@${row.version}: ${row.licence} (${row.note})`);
    rows.push(row);
  }
  return { rows, problems };
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const args = process.argv.slice(2);
  const rootAt = args.indexOf('--root');
  const root = rootAt >= 0 ? args[rootAt + 1] : join(dirname(fileURLToPath(import.meta.url)), '..');
  let result;
  try {
    result = checkLicences(root);
  } catch (err) {
    console.error(`check-licences: ${err.message}`);
    process.exit(2);
  }
  if (!args.includes('--quiet')) {
    for (const r of result.rows)
      console.log(`${r.status.padEnd(11)} ${`${r.name}@${r.version}`.padEnd(48)} ${r.licence}${r.note ? `  (${r.note})` : ''}`);
  }
  const counts = {};
  for (const r of result.rows) counts[r.status] = (counts[r.status] ?? 0) + 1;
  console.log(
    `${result.rows.length} runtime packages: ${Object.entries(counts)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')}`,
  );
  if (result.problems.length > 0) {
    console.error(`Licence problems (${result.problems.length}):\n  ${result.problems.join('\n  ')}`);
    process.exit(1);
  }
}
