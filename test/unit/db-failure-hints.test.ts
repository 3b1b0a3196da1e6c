import { expect } from 'chai';
import { describeDbFailure, type DbTarget } from '../../plugins/setup/db-target.js';

const target: DbTarget = { type: 'mariadb', host: 'db.example', port: 3307, database: 'cms', username: 'cms', password: 'hunter2-long' };
/** A Sequelize connection error as the mariadb driver makes it: the driver's error in parent and original. */
const wrapped = (code: string, message: string, errno?: number) => {
  const driver = { code, message, errno };
  return { name: 'SequelizeConnectionError', message, parent: driver, original: driver };
};

describe('setup: database test failures in words (describeDbFailure)', function () {
  it('a timeout names the address and the limit; the 15 s race of the test itself too', function () {
    expect(
      describeDbFailure(
        wrapped(
          'ER_CONNECTION_TIMEOUT',
          '(conn:-1, no: 45012, SQLState: 08S01) Connection timeout: failed to create socket after 15001ms',
          45012,
        ),
        target,
      ),
    ).to.equal(
      'db.example:3307 did not answer within 15 s: check the host, the port and any firewall in between. (Connection timeout: failed to create socket after 15001ms)',
    );
    expect(describeDbFailure(new Error('no answer within 15 s'), target)).to.match(/^db\.example:3307 did not answer within 15 s/);
  });

  it('a user without rights on the database, a host not allowed, and the password never repeated', function () {
    expect(
      describeDbFailure(wrapped('ER_DBACCESS_DENIED_ERROR', "Access denied for user 'cms'@'%' to database 'cms'", 1044), target),
    ).to.match(/^The user "cms" may not use the database "cms": grant it access/);
    expect(describeDbFailure(wrapped('ER_HOST_NOT_PRIVILEGED', "Host '10.0.0.9' is not allowed to connect", 1130), target)).to.match(
      /^The database server at db\.example:3307 does not accept connections from this machine/,
    );
    const echoed = describeDbFailure(wrapped('ER_UNKNOWN', 'bad handshake for password hunter2-long'), target);
    expect(echoed).to.equal('bad handshake for password ***');
  });
});
