import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { expect } from 'chai';
import { ENV_VARS, loadConfig, privateConfigPath, type LoadConfigOptions } from '../../kernel/config.js';
import { limitsFromConfig } from '../../kernel/cache/cache-service.js';
import { PROJECT_ROOT } from '../../kernel/version.js';
import { BootError } from '../../kernel/errors.js';

/** Runs loadConfig and returns the BootError it throws (fails the test when it does not throw). */
function configError(options: LoadConfigOptions): BootError {
  try {
    loadConfig(options);
  } catch (err) {
    expect(err).to.be.instanceOf(BootError);
    return err as BootError;
  }
  expect.fail('loadConfig should have thrown a BootError');
}

describe('config: loadConfig', () => {
  let cwd: string;
  const writeConfig = (content: unknown, dir = cwd, name = 'cms.config.json') => {
    const file = join(dir, name);
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };

  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'cms-config-'));
  });
  afterEach(() => {
    rmSync(cwd, { recursive: true, force: true });
  });

  it('has defaults: 127.0.0.1:3000, SQLite, ./data resolved to an absolute dataPath', () => {
    const config = loadConfig({ cwd, env: {} });
    expect(config.host).to.equal('127.0.0.1');
    expect(config.port).to.equal(3000);
    expect(config.db.type).to.equal('sqlite');
    expect(config.dataDir).to.equal('./data');
    expect(isAbsolute(config.dataPath)).to.equal(true);
    expect(config.dataPath).to.equal(join(cwd, 'data'));
    expect(config.root).to.equal(cwd);
    expect(config.plugins.disabled).to.deep.equal([]);
  });

  it('reads cms.config.json from cwd and lets environment variables override it', () => {
    writeConfig({ host: '0.0.0.0', port: 4000, logLevel: 'debug', rateLimit: { points: 10 }, dataDir: 'store' });
    const fromFile = loadConfig({ cwd, env: {} });
    expect(fromFile.host).to.equal('0.0.0.0');
    expect(fromFile.port).to.equal(4000);
    expect(fromFile.logLevel).to.equal('debug');
    expect(fromFile.rateLimit.points).to.equal(10);
    expect(fromFile.rateLimit.durationSeconds).to.equal(60);
    expect(fromFile.dataPath).to.equal(join(cwd, 'store'));

    const overridden = loadConfig({ cwd, env: { PORT: '5000', LOG_LEVEL: 'warn', CMS_RATE_LIMIT_POINTS: '25' } });
    expect(overridden.port).to.equal(5000);
    expect(overridden.logLevel).to.equal('warn');
    expect(overridden.rateLimit.points).to.equal(25);
    expect(overridden.host).to.equal('0.0.0.0');
    expect(overridden.sources.port).to.equal('PORT (environment)');
    expect(overridden.sources.host).to.equal('host (cms.config.json)');
  });

  it('reads the file CMS_CONFIG points to instead of cms.config.json, relative paths from its folder', () => {
    writeConfig({ port: 4000 });
    const other = join(cwd, 'elsewhere');
    mkdirSync(other);
    writeConfig({ port: 4100, dataDir: 'store' }, other, 'custom.json');
    const config = loadConfig({ cwd, env: { CMS_CONFIG: 'elsewhere/custom.json' } });
    expect(config.port).to.equal(4100);
    expect(config.root).to.equal(other);
    expect(config.dataPath).to.equal(join(other, 'store'));
  });

  it('refuses a CMS_CONFIG file that does not exist', () => {
    const err = configError({ cwd, env: { CMS_CONFIG: 'missing.json' } });
    expect(err.message).to.contain('CMS_CONFIG');
    expect(err.message).to.contain('missing.json');
  });

  it('PORT=abc names PORT and says a number is expected', () => {
    const err = configError({ cwd, env: { PORT: 'abc' } });
    expect(err.message).to.contain('PORT');
    expect(err.message).to.match(/number/i);
    expect(err.message).to.contain('abc');
  });

  it("CMS_PUBLIC_URL is the kernel's publicUrl (one place for mails, OIDC and passkeys); a bad value stops the boot naming it", () => {
    expect(loadConfig({ cwd, env: { CMS_PUBLIC_URL: 'https://cms.example.com' } }).publicUrl).to.equal('https://cms.example.com');
    expect(loadConfig({ cwd, env: {} }).publicUrl).to.equal(undefined);
    const err = configError({ cwd, env: { CMS_PUBLIC_URL: 'ftp://nope' } });
    expect(err.message).to.contain('CMS_PUBLIC_URL');
  });

  it('DB_TYPE=oracle names DB_TYPE and lists sqlite and mariadb', () => {
    const err = configError({ cwd, env: { DB_TYPE: 'oracle' } });
    expect(err.message).to.contain('DB_TYPE');
    expect(err.message).to.contain('sqlite');
    expect(err.message).to.contain('mariadb');
  });

  it('a bad value in cms.config.json names its JSON path and the file', () => {
    writeConfig({ rateLimit: { points: 0 } });
    const err = configError({ cwd, env: {} });
    expect(err.message).to.contain('rateLimit.points');
    expect(err.message).to.contain('cms.config.json');
    expect(err.message).not.to.contain('PORT');

    writeConfig({ http: { bodyLimit: 'huge' } });
    const err2 = configError({ cwd, env: {} });
    expect(err2.message).to.contain('http.bodyLimit');
    expect(err2.message).to.contain('512kb');
  });

  it('DB_URL fills type, host, port, user, password and name', () => {
    const config = loadConfig({ cwd, env: { DB_URL: 'mariadb://u:p@h:3307/n' } });
    expect(config.db.type).to.equal('mariadb');
    expect(config.db.host).to.equal('h');
    expect(config.db.port).to.equal(3307);
    expect(config.db.user).to.equal('u');
    expect(config.db.password).to.equal('p');
    expect(config.db.name).to.equal('n');
  });

  it('decodes percent-encoded credentials in DB_URL', () => {
    const config = loadConfig({ cwd, env: { DB_URL: 'mariadb://app%40x:p%3Aw@db.local/my%20db' } });
    expect(config.db.user).to.equal('app@x');
    expect(config.db.password).to.equal('p:w');
    expect(config.db.name).to.equal('my db');
    expect(config.db.port).to.equal(3306);
  });

  it('refuses a DB_URL that is not a URL or not mariadb://', () => {
    const notUrl = configError({ cwd, env: { DB_URL: 'not a url' } });
    expect(notUrl.message).to.contain('DB_URL');
    const otherScheme = configError({ cwd, env: { DB_URL: 'postgres://u:p@h/n' } });
    expect(otherScheme.message).to.contain('DB_URL');
    expect(otherScheme.message).to.contain('mariadb://');
  });

  describe('a config error never prints a password value', () => {
    const secret = 'Sup3rS3cretPw';
    it('in a DB_URL that is not a valid URL', () => {
      const err = configError({ cwd, env: { DB_URL: `mariadb://root:${secret}@db:notaport/cms` } });
      expect(err.message).to.contain('DB_URL');
      expect(err.message).not.to.contain(secret);
    });
    it('in a DB_URL with the wrong scheme', () => {
      const err = configError({ cwd, env: { DB_URL: `postgres://root:${secret}@db/cms` } });
      expect(err.message).not.to.contain(secret);
    });
    it('when another value is wrong and DB_URL holds a password', () => {
      const err = configError({ cwd, env: { DB_URL: `mariadb://root:${secret}@db/cms`, PORT: 'abc' } });
      expect(err.message).to.contain('PORT');
      expect(err.message).not.to.contain(secret);
    });
    it('in a db.password of the wrong type', () => {
      writeConfig({ db: { password: 987654321 } });
      const err = configError({ cwd, env: {} });
      expect(err.message).to.contain('db.password');
      expect(err.message).not.to.contain('987654321');
    });
    it('in a REDIS_URL with credentials and the wrong scheme', () => {
      const err = configError({ cwd, env: { REDIS_URL: `http://default:${secret}@cache:6379` } });
      expect(err.message).to.contain('REDIS_URL');
      expect(err.message).to.contain('redis://');
      expect(err.message).not.to.contain(secret);
    });
    it('in a REDIS_SENTINEL_PASSWORD when REDIS_SENTINELS lacks its master name or a port', () => {
      for (const env of [
        { REDIS_SENTINELS: 's1:26379,s2:26379', REDIS_SENTINEL_PASSWORD: secret, REDIS_PASSWORD: secret },
        { REDIS_SENTINELS: 's1,s2:26379', REDIS_SENTINEL_MASTER: 'cms', REDIS_PASSWORD: secret },
        { REDIS_SENTINELS: 's1:26379', REDIS_SENTINEL_MASTER: 'cms', REDIS_URL: 'redis://cache:6379', REDIS_PASSWORD: secret },
      ]) {
        const err = configError({ cwd, env });
        expect(err.message).to.match(/REDIS_SENTINEL|redis\.sentinel/);
        expect(err.message).not.to.contain(secret);
      }
      const ok = loadConfig({ cwd, env: { REDIS_SENTINELS: 's1:26379, [::1]:26380', REDIS_SENTINEL_MASTER: 'cms' } });
      expect(ok.redis).to.include({ sentinelMaster: 'cms' });
      expect(ok.redis.sentinels).to.deep.equal(['s1:26379', '[::1]:26380']);
    });
    it('in a connection URL given where an object belongs', () => {
      writeConfig({ db: `mariadb://root:${secret}@db/cms` });
      const err = configError({ cwd, env: {} });
      expect(err.message).to.contain('db');
      expect(err.message).not.to.contain(secret);
    });
    it('in a config file that is not valid JSON (an unquoted password)', () => {
      // V8 quotes up to ten characters around the error, so check a prefix of the secret too.
      for (const text of [`{"db": {"password": ${secret}}}`, '{"db":{"password":hunter2}}']) {
        writeConfig(text);
        const err = configError({ cwd, env: {} });
        expect(err.message).to.contain('cms.config.json');
        expect(err.message).to.match(/not valid JSON/);
        expect(err.message).not.to.contain(secret.slice(0, 6));
        expect(err.message).not.to.contain('unter2');
      }
    });
  });

  it('CMS_PLUGINS_DISABLED=a, b becomes [a, b]', () => {
    const config = loadConfig({ cwd, env: { CMS_PLUGINS_DISABLED: 'a, b' } });
    expect(config.plugins.disabled).to.deep.equal(['a', 'b']);
    const paths = loadConfig({ cwd, env: { CMS_PLUGINS_PATHS: ' ./x ,, /y ' } });
    expect(paths.plugins.paths).to.deep.equal(['./x', '/y']);
  });

  it('reads boolean environment variables and refuses a value that is not one', () => {
    expect(loadConfig({ cwd, env: { CMS_TRUST_PROXY: 'yes' } }).http.trustProxy).to.equal(true);
    expect(loadConfig({ cwd, env: { CMS_RATE_LIMIT_ENABLED: 'off' } }).rateLimit.enabled).to.equal(false);
    const err = configError({ cwd, env: { CMS_TRUST_PROXY: 'maybe' } });
    expect(err.message).to.contain('CMS_TRUST_PROXY');
  });

  it('refuses a config file that is not valid JSON, naming the file', () => {
    const file = writeConfig('{ "port": 3000, }');
    const err = configError({ cwd, env: {} });
    expect(err.message).to.contain(file);
    expect(err.message).to.match(/not valid JSON/);
  });

  it('refuses a config file that holds an array', () => {
    const file = writeConfig([1, 2]);
    const err = configError({ cwd, env: {} });
    expect(err.message).to.contain(file);
    expect(err.message).to.contain('object');
  });

  it('overrides win over the file and the environment; ignoreFile skips the file', () => {
    writeConfig({ port: 4000, host: '0.0.0.0' });
    const config = loadConfig({ cwd, env: { PORT: '5000' }, overrides: { port: 0 } });
    expect(config.port).to.equal(0);
    expect(config.host).to.equal('0.0.0.0');
    const ignored = loadConfig({ cwd, env: {}, ignoreFile: true });
    expect(ignored.port).to.equal(3000);
    expect(ignored.host).to.equal('127.0.0.1');
  });

  it('reads the secrets from the private config, the environment winning, RATE_LIMIT_SECRET included', () => {
    const file = privateConfigPath(join(cwd, 'data'));
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(
      file,
      JSON.stringify({ JWT_SECRET_KEY: 'jwt-from-file', ENCRYPTION_KEY: 'enc-from-file', RATE_LIMIT_SECRET: 'rl-from-file' }),
    );
    expect(loadConfig({ cwd, env: {} }).secrets).to.deep.equal({
      jwtSecretKey: 'jwt-from-file',
      encryptionKey: 'enc-from-file',
      rateLimitSecret: 'rl-from-file',
    });
    expect(loadConfig({ cwd, env: { RATE_LIMIT_SECRET: 'rl-from-env' } }).secrets.rateLimitSecret).to.equal('rl-from-env');
    expect(loadConfig({ cwd, env: {}, ignoreFile: true }).secrets).to.deep.equal({});
  });

  it('the cache bounds: defaults 64 MiB, 100,000 entries, 25 % per tenant, 16 MiB layers; set from the environment, checked', () => {
    const limits = limitsFromConfig(loadConfig({ cwd, env: {} }).cache);
    expect(limits).to.deep.equal({
      maxBytes: 64 * 1024 * 1024,
      maxEntries: 100_000,
      tenantShare: 0.25,
      localMaxBytes: 16 * 1024 * 1024,
      redisTenantListBytes: 32 * 1024 * 1024,
    });
    const set = loadConfig({
      cwd,
      env: { CMS_CACHE_MAX_MB: '8', CMS_CACHE_MAX_ENTRIES: '500', CMS_CACHE_TENANT_SHARE_PERCENT: '50', CMS_CACHE_LOCAL_MAX_MB: '2' },
    }).cache;
    expect(limitsFromConfig(set)).to.include({
      maxBytes: 8 * 1024 * 1024,
      maxEntries: 500,
      tenantShare: 0.5,
      localMaxBytes: 2 * 1024 * 1024,
    });
    expect(configError({ cwd, env: { CMS_CACHE_TENANT_SHARE_PERCENT: '0' } }).message).to.include('CMS_CACHE_TENANT_SHARE_PERCENT');
  });

  it('CMS_OUTBOUND_ALLOW_PRIVATE is the one outbound switch, off by default', () => {
    expect(loadConfig({ cwd, env: {} }).outbound.allowPrivate).to.equal(false);
    expect(loadConfig({ cwd, env: { CMS_OUTBOUND_ALLOW_PRIVATE: 'true' } }).outbound.allowPrivate).to.equal(true);
    expect(loadConfig({ cwd, env: { CMS_OUTBOUND_ALLOW_PRIVATE: 'false' } }).outbound.allowPrivate).to.equal(false);
  });

  it('CMS_CORS_ORIGINS is a comma-separated list of exact origins, empty by default; anything else stops the boot', () => {
    expect(loadConfig({ cwd, env: {} }).http.corsOrigins).to.deep.equal([]);
    const env = { CMS_CORS_ORIGINS: 'https://www.example.org, http://localhost:5173' };
    expect(loadConfig({ cwd, env }).http.corsOrigins).to.deep.equal(['https://www.example.org', 'http://localhost:5173']);
    const file = { http: { corsOrigins: ['https://shop.example.org:8443'] } };
    expect(loadConfig({ cwd, env: {}, overrides: file }).http.corsOrigins).to.deep.equal(['https://shop.example.org:8443']);
    for (const bad of [
      '*',
      'https://www.example.org/',
      'https://www.example.org/blog',
      'HTTPS://WWW.EXAMPLE.ORG',
      'www.example.org',
      'null',
      'ftp://x.example',
    ]) {
      expect(configError({ cwd, env: { CMS_CORS_ORIGINS: bad } }).message, bad)
        .to.include('CMS_CORS_ORIGINS')
        .and.include('an origin such as');
    }
  });

  it('the README configuration table names every environment variable the kernel reads, and no other', () => {
    const section = readFileSync(join(PROJECT_ROOT, 'docs', 'configuration.md'), 'utf8').split('\n## ')[0]!;
    const named = section
      .split('\n')
      .filter((line) => line.startsWith('| '))
      .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]!));
    expect([...new Set(named)].sort()).to.deep.equal(Object.keys(ENV_VARS).sort());
  });
});
