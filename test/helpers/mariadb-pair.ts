import type { Context } from 'mocha';
import { mariadbPairUnavailable, startMariaDbPair, type MariaDbPair } from '../../cluster/mariadb-pair.js';
import { MARIADB_URL } from './services.js';

/**
 * A MariaDB primary with `replicas` replicas of its own for a replica test's `before` hook, with a database `cms` made
 * on the primary; skips the suite, saying why, without CMS_TEST_MARIADB_URL or the server programs.
 */
export async function startPairOrSkip(hook: Context, replicas = 1): Promise<MariaDbPair> {
  if (!MARIADB_URL) {
    console.log('      CMS_TEST_MARIADB_URL is not set: replica tests skipped');
    hook.skip();
  }
  const missing = mariadbPairUnavailable();
  if (missing) {
    console.log(`      ${missing}`);
    hook.skip();
  }
  const pair = await startMariaDbPair(replicas);
  await pair.primary.query('CREATE DATABASE cms CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
  return pair;
}

/**
 * Waits until the primary's position stops moving (the set-up's background writes, such as a new collection's search
 * index, are done) and every replica has it.
 */
export async function settledPair(pair: MariaDbPair): Promise<void> {
  let last = '';
  for (let i = 0; i < 40; i++) {
    const [row] = await pair.primary.query('SELECT @@gtid_binlog_pos AS pos');
    if (row.pos === last) break;
    last = row.pos;
    await new Promise((r) => setTimeout(r, 500));
  }
  await pair.waitForReplica();
}
