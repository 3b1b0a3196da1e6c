/**
 * A CMS instance in its own process for the content-sync tests: boots a kernel (SQLite in its own
 * data folder, the folder CS_DATA_DIR, or the MariaDB database CS_DB_URL) with the test-identity fixture, creates the admin
 * user CS_ADMIN_EMAIL / CS_ADMIN_PASSWORD, prints `ready <JSON {url, dataDir}>` and runs until SIGTERM
 * (or its stdin closes: the parent died).
 */
import { fixturePlugin, startTestKernel } from './kernel.js';

const env = process.env;
const t = await startTestKernel({
  ...(env.CS_DB_URL ? { db: 'mariadb' as const, dbUrl: env.CS_DB_URL } : {}),
  // A data folder of the caller's (kept when the process ends: a test may start another instance on it).
  ...(env.CS_DATA_DIR ? { dataDir: env.CS_DATA_DIR } : {}),
  ...(env.CS_CACHE === 'redis' ? { cache: 'redis' as const } : {}),
  plugins: [fixturePlugin('test-identity')],
  config: {
    // The instances of these tests are on loopback (CMS_OUTBOUND_ALLOW_PRIVATE).
    outbound: { allowPrivate: true },
    plugins: {
      options: {
        auth: { bcryptRounds: 4 },
        ...(env.CS_SYNC_OPTIONS ? { 'content-sync': JSON.parse(env.CS_SYNC_OPTIONS) } : {}),
      },
    },
  } as never,
});
const users = t.kernel.container.resolve<{ create(i: object): Promise<{ _id: string }> }>('users');
await users.create({
  email: env.CS_ADMIN_EMAIL ?? 'sync-admin@example.com',
  password: env.CS_ADMIN_PASSWORD ?? 'correct horse battery',
  role: 'admin',
});
process.stdout.write(`ready ${JSON.stringify({ url: t.url, dataDir: t.dataDir })}\n`);

let closing = false;
const stop = async () => {
  if (closing) return;
  closing = true;
  await t.close().catch(() => undefined);
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.stdin.on('end', () => void stop());
process.stdin.resume();
