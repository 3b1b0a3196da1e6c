#!/usr/bin/env node
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from './config.js';
import { assertUniqueIds, discoverConfigured, discoverFolder } from './discovery.js';
import { BootError } from './errors.js';
import { cliKernel, inWords } from './cli-kernel.js';
import { migrateCommand } from './cli-migrate.js';
import { doctorCommand } from './cli-doctor.js';
import { createKernel, type Kernel } from './index.js';
import { closeOnSignals } from './signals.js';
import type { PluginRecord } from './loader.js';
import { createLogger } from './logger.js';
import { orderPlugins } from './plugin-order.js';
import { DIST_ROOT, KERNEL_VERSION } from './version.js';

const USAGE = `Usage:
  cms start                         start the service (default)
  cms plugins list [--json] [--boot]
  cms plugins describe <id> [--json] [--boot]
  cms migrate status|plan|apply [--yes] [--json]
                                    the database schema migrations (cms migrate --help)
  cms doctor [--json]               checks configuration, database, Redis, storage, data folder, versions
  cms <command> [--json] [--help]   a command of a plugin (e.g. cms users, from auth; cms <command> --help
                                    says its arguments)

plugins list/describe read the manifests without running plugin code; --boot also boots the kernel
on a free port to report each plugin's state and boot time, then stops it.`;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/** The plugin tree from manifests alone: discovery and ordering, with the same checks as boot. */
function manifestTree(): Array<Partial<PluginRecord> & { id: string }> {
  const config = loadConfig();
  const discovered = [...discoverFolder(join(DIST_ROOT, 'plugins')), ...discoverConfigured(config.plugins.paths, config.root)];
  assertUniqueIds(discovered);
  const { ordered, disabled } = orderPlugins({
    plugins: discovered,
    disabled: config.plugins.disabled,
    enabled: config.plugins.enabled,
    kernelVersion: KERNEL_VERSION,
  });
  const row = (p: (typeof discovered)[number], enabled: boolean) => ({
    id: p.manifest.id,
    name: p.manifest.name,
    version: p.manifest.version,
    description: p.manifest.description,
    enabled,
    phase: p.manifest.phase,
    source: p.source,
    dir: p.dir,
    requires: p.manifest.requires,
    provides: Object.fromEntries(Object.entries(p.manifest.provides).filter(([, v]) => v?.length)) as Record<string, string[]>,
    permissions: Object.keys(p.manifest.permissions),
    namespaces: Object.keys(p.manifest.namespaces),
  });
  return [...ordered.map((p) => row(p, true)), ...disabled.map((p) => row(p, false))];
}

async function bootedTree(): Promise<PluginRecord[]> {
  // Logs go to stderr: stdout carries the report (JSON with --json), which a log line would corrupt.
  const kernel = createKernel({
    configOptions: { overrides: { port: 0, logLevel: 'warn', jobs: { enabled: false } } },
    logger: createLogger('warn', process.stderr),
  });
  await kernel.start();
  // Copies: close() moves every record to state 'closed'; the report shows the state after boot.
  const records = kernel.loader.describe().map((r) => ({ ...r }));
  await kernel.close();
  return records;
}

function printTable(rows: Array<Partial<PluginRecord> & { id: string }>): void {
  const provides = (r: Partial<PluginRecord>) =>
    Object.entries(r.provides ?? {})
      .map(([k, v]) => `${k}: ${v.join(', ')}`)
      .join('; ') || '-';
  const lines = rows.map((r) => [
    r.id,
    r.version ?? '',
    r.enabled ? 'enabled' : 'disabled',
    r.phase ?? '',
    r.state ?? '',
    r.bootMs === undefined ? '' : `${r.bootMs} ms`,
    (r.requires ?? []).join(', ') || '-',
    provides(r),
  ]);
  const head = ['ID', 'VERSION', 'ENABLED', 'PHASE', 'STATE', 'BOOT', 'REQUIRES', 'PROVIDES'];
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  for (const l of [head, ...lines])
    process.stdout.write(
      `${l
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd()}\n`,
    );
}

/** A command contributed by a plugin (provides.cliCommands in its manifest), found without running plugin code. */
function contributedCommand(name: string): { plugin: string } | null {
  const tree = manifestTree();
  const owner = tree.find((p) => p.provides?.cliCommands?.includes(name));
  if (!owner) return null;
  if (!owner.enabled) fail(`'cms ${name}' comes from the plugin '${owner.id}', which is disabled`);
  return { plugin: owner.id };
}

/**
 * Boots on a free 127.0.0.1 port (job runner off, logs to stderr) on the installation's configuration (its data
 * folder or database: a running installation's too), runs the plugin's command, stops. `--help` prints the
 * command's usage instead of running it.
 */
async function runContributed(name: string, json: boolean, args: string[], help: boolean): Promise<void> {
  const kernel = cliKernel();
  await kernel.start();
  try {
    const command = kernel.registries.cliCommands.get(name);
    if (!command) fail(`No command '${name}' was registered`);
    if (help) return void process.stdout.write(`Usage: cms ${name} ${command.usage ?? ''}\n\n${command.summary}\n${command.help ?? ''}`);
    await command.run({ kernel, json, args, out: (text) => void process.stdout.write(text) });
  } finally {
    await kernel.close();
  }
}

/** A plugin's command: its own arguments and flags follow its name (it parses them); `--json` and `--help` are everyone's. */
async function contributed(command: string, rest: string[]): Promise<void> {
  const help = rest.includes('--help') || rest.includes('-h');
  try {
    if (!contributedCommand(command)) fail(usage());
    return await runContributed(
      command,
      rest.includes('--json'),
      rest.filter((a) => a !== '--json'),
      help,
    );
  } catch (err) {
    fail(err instanceof BootError ? err.message : ((err as Error).message ?? String(err)));
  }
}

/** A kernel command that must not boot (a boot applies migrations): kernel/cli-migrate.ts, cli-doctor.ts. */
async function builtIn(command: 'migrate' | 'doctor', rest: string[]): Promise<void> {
  const json = rest.includes('--json');
  const args = rest.filter((a) => a !== '--json');
  try {
    if (command === 'migrate') await migrateCommand(args, json);
    else process.exitCode = (await doctorCommand(args, json)) ? 0 : 1;
  } catch (err) {
    fail(inWords(err));
  }
}

/** The usage, with the commands of the enabled plugins (from their manifests). */
function usage(): string {
  let extra = '';
  try {
    extra = manifestTree()
      .filter((p) => p.enabled)
      .flatMap((p) => (p.provides?.cliCommands ?? []).map((c) => `  cms ${c.padEnd(31)}(plugin ${p.id})`))
      .join('\n');
  } catch {
    // a broken configuration: the plain usage
  }
  return extra ? `${USAGE}\n\nCommands of plugins:\n${extra}` : USAGE;
}

/**
 * What a person starting the service opens next: the setup wizard while setup is incomplete (the
 * admin UI answers 302 to /setup then), else the admin UI. Asked over HTTP, so the CLI knows no plugin.
 */
async function whereToGo(url: string): Promise<string> {
  const open = url.replace('//0.0.0.0:', '//localhost:').replace('//[::]:', '//localhost:');
  try {
    const res = await fetch(`${url}/admin/`, { redirect: 'manual', signal: AbortSignal.timeout(5000) });
    await res.body?.cancel();
    if (res.status === 302 && (res.headers.get('location') ?? '').endsWith('/setup'))
      return `Open ${open}/setup in a browser to finish setup.`;
  } catch {
    // not answering yet: the admin UI address is still right
  }
  return `Admin UI: ${open}/admin/`;
}

async function start(): Promise<void> {
  let kernel: Kernel;
  try {
    kernel = createKernel();
  } catch (err) {
    fail(err instanceof BootError ? err.message : `Cannot start: ${(err as Error).stack}`);
  }
  const stopping = closeOnSignals(kernel, kernel.config.http.shutdownDrainMs + kernel.config.http.shutdownTimeoutMs + 15000);
  try {
    await kernel.start();
    process.stdout.write(`CMS listening on ${kernel.url}\n`);
    process.stdout.write(`${await whereToGo(kernel.url)}\n`);
  } catch (err) {
    if (stopping()) return; // a signal during boot: the kernel stopped booting and closed; not a failure
    fail(err instanceof BootError ? `Boot failed: ${err.message}` : `Boot failed: ${(err as Error).stack}`);
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const at = argv.findIndex((a) => !a.startsWith('-'));
  if (argv[at] === 'migrate' || argv[at] === 'doctor') return builtIn(argv[at]!, argv.slice(at + 1));
  if (at !== -1 && argv[at] !== 'start' && argv[at] !== 'plugins') return contributed(argv[at]!, argv.slice(at + 1));
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { json: { type: 'boolean' }, boot: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  const [command = 'start', sub, id] = positionals;
  if (values.help) return void process.stdout.write(`${usage()}\n`);
  if (command === 'start') return start();
  if (sub !== 'list' && sub !== 'describe') fail(usage());
  try {
    const rows = values.boot ? await bootedTree() : manifestTree();
    const selected = sub === 'describe' ? rows.filter((r) => r.id === id) : rows;
    if (sub === 'describe' && !selected.length) fail(`No plugin '${id ?? ''}' is installed`);
    if (values.json || sub === 'describe')
      process.stdout.write(`${JSON.stringify(sub === 'describe' ? selected[0] : selected, null, 2)}\n`);
    else printTable(selected);
  } catch (err) {
    fail(err instanceof BootError ? err.message : ((err as Error).stack ?? String(err)));
  }
}

await main();
