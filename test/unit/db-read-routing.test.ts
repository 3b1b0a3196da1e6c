import { expect } from 'chai';
import { loadConfig } from '../../kernel/config.js';
import { createSequelize } from '../../kernel/db/database.js';
import { gtidReached, isGtidPosition, parseGtidPosition } from '../../kernel/db/gtid.js';
import { callerKey } from '../../kernel/db/read-routing.js';
import { BootError } from '../../kernel/errors.js';
import { createLogger } from '../../kernel/logger.js';

describe('read replicas: GTID positions, callers and DB_READ_URLS', () => {
  it('a position has reached another when every domain of the other is at least as far', () => {
    expect(gtidReached('0-1-12', '0-1-12')).to.equal(true);
    expect(gtidReached('0-1-13', '0-1-12')).to.equal(true);
    expect(gtidReached('0-1-11', '0-1-12')).to.equal(false);
    expect(gtidReached('0-1-20,1-1-3', '0-1-12,1-1-4')).to.equal(false);
    expect(gtidReached('0-1-20,1-1-4', '1-1-4,0-1-12')).to.equal(true);
    expect(gtidReached('', '0-1-1')).to.equal(false);
    expect(gtidReached('0-1-1', '')).to.equal(true);
    // Sequence numbers beyond 2^53 compare exactly.
    expect(gtidReached('0-1-9007199254740993', '0-1-9007199254740992')).to.equal(true);
    expect(parseGtidPosition('0-1-5, 2-3-7').get('2')).to.equal(7n);
    expect(isGtidPosition('0-1-5,2-3-7')).to.equal(true);
    expect(isGtidPosition("0-1-5'; DROP")).to.equal(false);
  });

  it('a write is remembered per user, API key, website token, or for a guest per address, within its tenant', () => {
    const user = { kind: 'user', userId: 'u1', tenantId: 't1' };
    expect(callerKey(user, '10.0.0.1')).to.equal('t1:user:u1');
    expect(callerKey({ ...user, kind: 'apiKey', meta: { apiKeyId: 'k9' } }, '10.0.0.1')).to.equal('t1:apiKey:k9');
    expect(callerKey({ kind: 'guest', userId: null, tenantId: 'default' }, '10.0.0.1')).to.equal('default:guest:10.0.0.1');
  });

  it('DB_READ_URLS takes mariadb:// URLs, refuses others, and needs MariaDB', () => {
    const config = loadConfig({
      ignoreFile: true,
      env: { DB_URL: 'mariadb://cms:pw@db:3306/cms', DB_READ_URLS: 'mariadb://r1:3307,mariadb://ro:secret@r2' },
    });
    expect(config.db.readUrls).to.deep.equal(['mariadb://r1:3307', 'mariadb://ro:secret@r2']);
    expect(() => loadConfig({ ignoreFile: true, env: { DB_URL: 'mariadb://db/cms', DB_READ_URLS: 'postgres://x' } })).to.throw(
      BootError,
      /DB_READ_URLS \(environment\), item 1: must be a mariadb:\/\/ URL/,
    );
    const sqlite = loadConfig({ ignoreFile: true, env: { DB_READ_URLS: 'mariadb://r1' } });
    expect(() => createSequelize(sqlite, createLogger('silent'))).to.throw(BootError, /needs MariaDB/);
  });
});
