import { expect } from 'chai';
import { ConnectionRefusedError, DatabaseError, UniqueConstraintError } from 'sequelize';
import { DatabaseUnavailableError } from '../../kernel/errors.js';
import { isDatabaseUnreachable, toAppError } from '../../kernel/http/error-handler.js';

/** A database that cannot be reached answers 503 DATABASE_UNAVAILABLE, not 500 (issue 23). */
describe('database unreachable -> 503 DATABASE_UNAVAILABLE', function () {
  const driverError = (code: string, fatal: boolean) => Object.assign(new Error(`driver: ${code}`), { code, fatal, sql: 'SELECT 1' });

  it('maps a refused connection, and a query whose connection dropped, also when wrapped', function () {
    const refused = new ConnectionRefusedError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const dropped = new DatabaseError(driverError('ER_SOCKET_UNEXPECTED_CLOSE', true) as never);
    const wrapped = new Error('loading the list failed', { cause: dropped });
    for (const err of [refused, dropped, wrapped]) {
      expect(isDatabaseUnreachable(err), String(err)).to.equal(true);
      const app = toAppError(err, '1mb');
      expect(app).to.be.instanceOf(DatabaseUnavailableError);
      expect(app.status).to.equal(503);
      expect(app.headers['Retry-After']).to.equal('2');
    }
  });

  it('leaves other database errors alone (a bad query stays 500; a duplicate is not an outage)', function () {
    const syntax = new DatabaseError(driverError('ER_PARSE_ERROR', false) as never);
    expect(isDatabaseUnreachable(syntax)).to.equal(false);
    expect(toAppError(syntax, '1mb').status).to.equal(500);
    expect(isDatabaseUnreachable(new UniqueConstraintError({}))).to.equal(false);
    expect(isDatabaseUnreachable(new Error('plain'))).to.equal(false);
    // A refused connection to anything else (an object store, a webhook) is not the database.
    expect(isDatabaseUnreachable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).to.equal(false);
    expect(isDatabaseUnreachable(new DatabaseError(Object.assign(new Error('reset'), { code: 'ECONNRESET', sql: '' }) as never))).to.equal(
      true,
    );
  });
});
