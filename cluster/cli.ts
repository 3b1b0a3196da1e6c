import { parseArgs } from 'node:util';
import { startCluster, type Cluster } from './start-cluster.js';

/**
 * `npm run cluster -- --instances 3 [--port 8080] [--mariadb URL] [--redis URL] [--proxy nginx] [--keep]`:
 * N instances behind a round-robin proxy (the test proxy, or nginx) on one fresh MariaDB database, one Redis and an S3 protocol server.
 * Ctrl-C (SIGINT) or SIGTERM stops everything and drops the database (unless --keep).
 */
const { values } = parseArgs({
  options: {
    instances: { type: 'string', default: '3' },
    port: { type: 'string', default: '0' },
    mariadb: { type: 'string', default: process.env.CMS_TEST_MARIADB_URL || 'mariadb://root@127.0.0.1:3306/test' },
    redis: { type: 'string', default: process.env.CMS_TEST_REDIS_URL || 'redis://127.0.0.1:6379' },
    'log-level': { type: 'string', default: 'info' },
    proxy: { type: 'string', default: 'test' },
    keep: { type: 'boolean', default: false },
    replica: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help) {
  process.stdout.write(
    'Usage: npm run cluster -- [--instances 3] [--port 0] [--mariadb mariadb://root@127.0.0.1:3306/test] [--redis redis://127.0.0.1:6379] [--log-level info] [--proxy test|nginx] [--replica] [--keep]\n' +
      'MariaDB and Redis default to CMS_TEST_MARIADB_URL and CMS_TEST_REDIS_URL. --keep keeps the database after stopping.\n' +
      '--replica: a MariaDB primary and a replica of their own (two mariadbd processes), the instances reading the replica.\n' +
      "--proxy nginx puts Debian's nginx in front (cluster/nginx/cms.conf.template) instead of the test proxy.\n",
  );
  process.exit(0);
}

let cluster: Cluster | null = null;
let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`\n${signal}: stopping the cluster...\n`);
  const force = setTimeout(() => process.exit(1), 90000);
  force.unref();
  await cluster?.stop();
  process.stdout.write(
    cluster
      ? `stopped; ${values.keep ? `database ${cluster.database} kept` : `database ${cluster.database} dropped`}; logs in ${cluster.logDir}\n`
      : 'stopped\n',
  );
  process.exit(0);
};
process.once('SIGINT', () => void stop('SIGINT'));
process.once('SIGTERM', () => void stop('SIGTERM'));

try {
  cluster = await startCluster({
    instances: Number(values.instances),
    port: Number(values.port),
    mariadbUrl: values.mariadb!,
    redisUrl: values.redis!,
    logLevel: values['log-level'],
    proxy: values.proxy === 'nginx' ? 'nginx' : 'test',
    keepDatabase: values.keep,
    replica: values.replica,
    keepLogs: true,
    onProgress: (line) => process.stdout.write(`${line}\n`),
  });
  if (stopping) await cluster.stop();
  else
    process.stdout.write(
      `\nCluster ready: ${cluster.url}\n` +
        `Admin: ${cluster.admin.email} / ${cluster.admin.password} (${cluster.url}/admin/)\n` +
        `Database ${cluster.database}, Redis prefix ${cluster.redisPrefix}, logs in ${cluster.logDir}\n` +
        'Ctrl-C stops everything.\n',
    );
} catch (err) {
  process.stderr.write(`Cluster did not start: ${(err as Error).message}\n`);
  process.exit(1);
}
