/**
 * `cms doctor` (issue 39, "A CLI for operators"): checks an installation without its HTTP server and prints each
 * check as ok, warn or fail with what to do; exit 1 when one fails. A kernel command that does not need a boot: the
 * configuration is loaded and the plugins registered (Kernel.prepare), the database opened when it can be (an
 * unreachable one is a failed check, not a crash) and nothing is changed (no folder made, no migration run). Only
 * when the database is up to date does it boot the installation on a loopback port (job runner off) to run the
 * plugins' health checks: the media storage writable or reachable.
 */
import { parseArgs } from 'node:util';
import { cliKernel, inWords, printer } from './cli-kernel.js';
import { dataFolder, database, nodeVersion, redis, within, type DoctorCheck } from './doctor-checks.js';
import type { Kernel } from './index.js';

export const DOCTOR_USAGE = `Usage: cms doctor [--json]

Checks this installation and says what to fix, without its HTTP server and without changing anything:
  node              the Node.js version meets the project's engines
  config            cms.config.json and the environment parse and validate, the plugins' options too
  data-folder       the data folder is a folder, writable, owner-only
  database          the database opens (SQLite file, or the MariaDB server reachable)
  database-version  the database server's version is supported
  migrations        no migration pending or changed after it ran
  redis             Redis answers (when REDIS_URL is set)
  storage           the media storage is writable (local folder) or reachable (S3), and the other plugin
                    health checks (health:<id>); checked by booting on a loopback port, so only when the
                    database is up to date (a boot would apply pending migrations)

Each check is ok, warn or fail; the exit code is 1 when any check fails. --json prints
{ "ok": boolean, "checks": [{ "id", "status", "message", "fix"? }] }.
`;

const notChecked = (id: string, why: string): DoctorCheck => ({ id, status: 'warn', message: `Not checked: ${why}` });

/** A plugin health check's answer in words (its fields but status). */
function described(answer: Record<string, unknown>): string {
  const { status, ...rest } = answer;
  const fields = Object.entries(rest).map(([k, v]) => `${k} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
  return `${String(status)}${fields.length ? ` (${fields.join(', ')})` : ''}`;
}

/** Boots on a loopback port and runs every registered health check; media-storage is the `storage` check. */
async function bootedChecks(): Promise<DoctorCheck[]> {
  const kernel = cliKernel();
  try {
    await within(120000, 'The boot', kernel.start());
  } catch (err) {
    await kernel.close().catch(() => undefined);
    return [
      {
        id: 'storage',
        status: 'fail',
        message: `The installation does not start: ${inWords(err)}`,
        fix: 'Fix what the message names, then run cms doctor again',
      },
    ];
  }
  try {
    const checks: DoctorCheck[] = [];
    const health = kernel.registries.healthChecks.list();
    if (!health.some((h) => h.id === 'media-storage')) checks.push({ id: 'storage', status: 'ok', message: 'No media plugin is enabled' });
    for (const h of health) {
      const id = h.id === 'media-storage' ? 'storage' : `health:${h.id}`;
      try {
        const answer = await within(20000, `The health check ${h.id}`, h.check());
        const status = answer.status === 'ok' ? 'ok' : answer.status === 'degraded' ? 'warn' : 'fail';
        const message =
          id === 'storage' && status === 'ok'
            ? `The media storage '${String(answer.driver)}' is ${answer.kind === 'local' ? 'writable' : 'reachable'}`
            : described(answer);
        checks.push({ id, status, message, ...(status === 'ok' ? {} : { fix: `See the ${h.id} health check's fields` }) });
      } catch (err) {
        const fix =
          id === 'storage'
            ? 'Local storage: make the media folder (MEDIA_FOLDER, under the data folder) a writable folder. S3: check MEDIA_CLOUD_ENDPOINT, MEDIA_CLOUD_BUCKET and the access keys'
            : `See the ${h.id} plugin's documentation`;
        checks.push({ id, status: 'fail', message: inWords(err), fix });
      }
    }
    return checks;
  } finally {
    await kernel.close();
  }
}

/** The checks that need the configuration: data folder, database, Redis (the kernel prepared, not booted). */
async function preparedChecks(kernel: Kernel, checks: DoctorCheck[]): Promise<boolean> {
  let registered = true;
  try {
    await kernel.prepare();
    checks.push({ id: 'config', status: 'ok', message: 'The configuration and the plugins\u2019 options are valid' });
  } catch (err) {
    registered = false;
    checks.push({
      id: 'config',
      status: 'fail',
      message: inWords(err),
      fix: 'Correct the setting the message names (cms.config.json, or the environment variable)',
    });
  }
  checks.push(await dataFolder(kernel.config));
  const db = registered ? await database(kernel) : [notChecked('database', 'the plugins do not register (see config)')];
  checks.push(...db);
  const cache = await redis(kernel.config);
  checks.push(cache);
  return registered && cache.status === 'ok' && db.every((c) => c.status === 'ok');
}

async function runChecks(): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [nodeVersion()];
  let kernel: Kernel;
  try {
    kernel = cliKernel();
  } catch (err) {
    checks.push({
      id: 'config',
      status: 'fail',
      message: inWords(err),
      fix: 'Correct cms.config.json or the environment variable the message names',
    });
    for (const id of ['data-folder', 'database', 'redis', 'storage']) checks.push(notChecked(id, 'the configuration does not load'));
    return checks;
  }
  let ready = false;
  try {
    ready = await preparedChecks(kernel, checks);
  } finally {
    await kernel.close();
  }
  if (ready) checks.push(...(await bootedChecks()));
  else
    checks.push(
      notChecked(
        'storage',
        'a check boots the installation, which needs the database open and up to date and Redis (when set) reachable (see above)',
      ),
    );
  return checks;
}

/** `cms doctor`: true when no check failed. */
export async function doctorCommand(args: string[], json: boolean): Promise<boolean> {
  let help: boolean | undefined;
  try {
    help = parseArgs({ args, options: { help: { type: 'boolean', short: 'h' } } }).values.help;
  } catch (err) {
    throw new Error(`${(err as Error).message} (cms doctor --help lists the options)`);
  }
  if (help) return (void process.stdout.write(DOCTOR_USAGE), true);
  const checks = await runChecks();
  const ok = !checks.some((c) => c.status === 'fail');
  const width = Math.max(...checks.map((c) => c.id.length));
  const lines = checks.map(
    (c) =>
      `${c.status.toUpperCase().padEnd(5)} ${c.id.padEnd(width)}  ${c.message}${c.fix ? `\n${' '.repeat(width + 8)}fix: ${c.fix}` : ''}`,
  );
  const count = (s: DoctorCheck['status']) => checks.filter((c) => c.status === s).length;
  const summary = `${count('ok')} ok, ${count('warn')} warn, ${count('fail')} fail${ok ? '' : ': fix the failed checks'}`;
  printer(json)({ ok, checks }, `${lines.join('\n')}\n${summary}\n`);
  return ok;
}
