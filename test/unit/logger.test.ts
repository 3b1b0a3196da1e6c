import { expect } from 'chai';
import { createLogger, redactSecrets, redactString } from '../../kernel/logger.js';

/** A logger writing into an array: the real pino pipeline, nothing on stdout. */
function collectingLogger(level = 'trace') {
  const lines: string[] = [];
  const logger = createLogger(level, { write: (line: string) => void lines.push(line) });
  return {
    logger,
    lines,
    text: () => lines.join(''),
    records: () => lines.map((l) => JSON.parse(l) as Record<string, any>),
  };
}

describe('logger: secrets never reach a log line', () => {
  const SECRETS = ['pw-hunter2', 'tok-abc123', 'ak-999', 'sid=cookie42', 'Basic dXNlcjpwYXNz'];

  it('censors secret-looking keys at any depth and keeps the other fields', () => {
    const { logger, text, records } = collectingLogger();
    logger.info(
      {
        user: 'ada',
        count: 3,
        password: 'pw-hunter2',
        token: 'tok-abc123',
        nested: { apiKey: 'ak-999', cookie: 'sid=cookie42', keep: 'visible' },
        headers: { authorization: 'Basic dXNlcjpwYXNz', accept: 'application/json' },
      },
      'login attempt',
    );
    const out = text();
    for (const secret of SECRETS) expect(out).not.to.contain(secret);
    const [record] = records();
    expect(record!.msg).to.equal('login attempt');
    expect(record!.user).to.equal('ada');
    expect(record!.count).to.equal(3);
    expect(record!.password).to.equal('[redacted]');
    expect(record!.token).to.equal('[redacted]');
    expect(record!.nested).to.deep.equal({ apiKey: '[redacted]', cookie: '[redacted]', keep: 'visible' });
    expect(record!.headers).to.deep.equal({ authorization: '[redacted]', accept: 'application/json' });
  });

  it('censors secrets inside arrays, also through a child logger', () => {
    const { logger, text, records } = collectingLogger();
    logger.child({ plugin: 'auth' }).warn({ attempts: [{ user: 'bob', password: 'pw-hunter2' }] }, 'retry');
    expect(text()).not.to.contain('pw-hunter2');
    const [record] = records();
    expect(record!.plugin).to.equal('auth');
    expect(record!.attempts).to.deep.equal([{ user: 'bob', password: '[redacted]' }]);
  });

  it('logging an Error never prints its secrets (as err, alone, or with a message)', () => {
    const { logger, text, records } = collectingLogger();
    const err = Object.assign(new Error('connect ECONNREFUSED mariadb://root:dbpass77@db.internal:3306/cms'), {
      password: 'pw-hunter2',
      config: { token: 'tok-abc123' },
    });
    logger.error({ err }, 'database failed');
    logger.error(err);
    logger.error(err, 'with a message');
    logger.error({ err });
    const out = text();
    expect(out).not.to.contain('dbpass77');
    for (const secret of SECRETS) expect(out).not.to.contain(secret);
    const recs = records();
    expect(recs).to.have.length(4);
    for (const r of recs) {
      expect(r.err.message).to.contain('ECONNREFUSED');
      expect(r.err.message).to.contain('db.internal:3306/cms');
      expect(r.err.stack).to.be.a('string');
    }
    expect(recs[0]!.err.type).to.equal('Error');
    expect(recs[0]!.msg).to.equal('database failed');
    expect(recs[1]!.msg).to.contain('ECONNREFUSED');
    expect(recs[2]!.msg).to.equal('with a message');
    expect(recs[3]!.msg).to.contain('ECONNREFUSED');
  });

  it('keeps the error class and code', () => {
    const { logger, records } = collectingLogger();
    logger.error({ err: Object.assign(new TypeError('bad input'), { code: 'E_BAD' }) }, 'typed');
    logger.warn(new RangeError('out of range'));
    const [typed, ranged] = records();
    expect(typed!.err).to.include({ type: 'TypeError', message: 'bad input', code: 'E_BAD' });
    expect(ranged!.err).to.include({ type: 'RangeError', message: 'out of range' });
  });

  it('censors connection URLs, bearer tokens and sck_ keys inside message strings', () => {
    const { logger, text, records } = collectingLogger();
    logger.info('connecting to mariadb://root:secret@host/db');
    logger.info('sent Authorization: Bearer abc.def to upstream');
    logger.info('website key sck_live123 used');
    logger.info('fmt %s and %s', 'mariadb://root:secret@host/db', 'Bearer abc.def');
    const out = text();
    expect(out).not.to.contain('secret@');
    expect(out).not.to.contain(':secret');
    expect(out).not.to.contain('abc.def');
    expect(out).not.to.contain('live123');
    const msgs = records().map((r) => r.msg as string);
    expect(msgs[0]).to.equal('connecting to mariadb://root:[redacted]@host/db');
    expect(msgs[1]).to.equal('sent Authorization: Bearer [redacted] to upstream');
    expect(msgs[2]).to.equal('website key sck_[redacted] used');
    expect(msgs[3]).to.equal('fmt mariadb://root:[redacted]@host/db and Bearer [redacted]');
  });

  it('censors secrets inside string fields whose key looks harmless', () => {
    const { logger, text, records } = collectingLogger();
    logger.info({ dsn: 'mariadb://root:secret@host/db', note: 'used Bearer abc.def', target: 'host/db' }, 'db');
    expect(text()).not.to.contain(':secret@');
    expect(text()).not.to.contain('abc.def');
    const [record] = records();
    expect(record!.dsn).to.equal('mariadb://root:[redacted]@host/db');
    expect(record!.target).to.equal('host/db');
  });

  it('leaves empty secret fields alone and does not censor harmless keys', () => {
    const { logger, records } = collectingLogger();
    logger.info({ password: '', keyboard: 'qwerty', monkey: 'george' }, 'plain');
    const [record] = records();
    expect(record!.password).to.equal('');
    expect(record!.keyboard).to.equal('qwerty');
    expect(record!.monkey).to.equal('george');
  });

  it('honours the level', () => {
    const { logger, records } = collectingLogger('warn');
    logger.info('hidden');
    logger.debug('hidden too');
    logger.warn('shown');
    logger.error('shown too');
    expect(records().map((r) => [r.level, r.msg])).to.deep.equal([
      ['warn', 'shown'],
      ['error', 'shown too'],
    ]);
  });

  it('silent logs nothing', () => {
    const { logger, lines } = collectingLogger('silent');
    logger.error({ password: 'x' }, 'nothing');
    expect(lines).to.deep.equal([]);
  });
});

describe('logger: redaction helpers', () => {
  it('redactSecrets copies without touching the input and survives cycles', () => {
    const input: Record<string, any> = { password: 'p', inner: { token: 't', ok: 1 } };
    input.self = input;
    const out = redactSecrets(input) as Record<string, any>;
    expect(out.password).to.equal('[redacted]');
    expect(out.inner).to.deep.equal({ token: '[redacted]', ok: 1 });
    expect(out.self).to.equal('[…]');
    expect(input.password).to.equal('p');
    expect(input.inner.token).to.equal('t');
  });

  it('redactString keeps text without secrets as it is', () => {
    const plain = 'GET /api/health 200 in 3 ms from http://127.0.0.1:3000/x';
    expect(redactString(plain)).to.equal(plain);
    expect(redactString('redis://default:pw@cache:6379')).to.equal('redis://default:[redacted]@cache:6379');
  });
});
