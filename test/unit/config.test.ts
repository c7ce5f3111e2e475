import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, environmentHelp, EnvSchema, loadConfig, parseDuration, VARIABLES } from '../../src/config.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    assert.equal(c.port, 8080);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.databaseUrl, 'sqlite:./data/opencity.db');
    assert.equal(c.publicUrl, 'http://127.0.0.1:8080');
    assert.equal(c.platformServiceName, 'opencity');
    assert.equal(c.onlineWindowMs, 24 * 3600 * 1000);
    assert.equal(c.siteQuota, 100000);
    assert.deepEqual(c.ipLocationDb, []);
    assert.equal(c.changeLog, true);
    assert.equal(c.changeRetentionMs, 7 * 86_400_000);
  });

  it('reads CHANGE_LOG and CHANGE_RETENTION', () => {
    assert.equal(loadConfig({ CHANGE_LOG: 'off' }).changeLog, false);
    assert.equal(loadConfig({ CHANGE_LOG: 'on' }).changeLog, true);
    assert.equal(loadConfig({ CHANGE_RETENTION: '48h' }).changeRetentionMs, 48 * 3_600_000);
  });

  it('reads IP_LOCATION_DB as a list of files separated by commas', () => {
    assert.deepEqual(loadConfig({ IP_LOCATION_DB: '/data/city.mmdb' }).ipLocationDb, ['/data/city.mmdb']);
    assert.deepEqual(loadConfig({ IP_LOCATION_DB: ' /data/city-ipv4.mmdb, /data/city-ipv6.mmdb ,' }).ipLocationDb, ['/data/city-ipv4.mmdb', '/data/city-ipv6.mmdb']);
  });

  it('builds PUBLIC_URL from HOST and PORT and strips a trailing slash', () => {
    assert.equal(loadConfig({ HOST: '0.0.0.0', PORT: '9000' }).publicUrl, 'http://0.0.0.0:9000');
    assert.equal(loadConfig({ PUBLIC_URL: 'https://city.example.org/' }).publicUrl, 'https://city.example.org');
  });

  for (const [name, value] of [
    ['PORT', 'eighty'], ['PORT', '70000'], ['DATABASE_URL', 'mysql://x'], ['ONLINE_WINDOW', '24 hours'],
    ['SITE_QUOTA', '-1'], ['PUBLIC_URL', 'ftp://x'], ['LOG_LEVEL', 'loud'], ['OPENCITY_ADMIN_SECRET', 'short'],
    ['CHANGE_LOG', 'no'], ['CHANGE_RETENTION', 'a week'],
  ] as const) {
    it(`refuses ${name}=${value} with a message naming it`, () => {
      assert.throws(() => loadConfig({ [name]: value }), (e: unknown) => e instanceof ConfigError && e.message.includes(name));
    });
  }

  it('never shows the value of a secret in its error', () => {
    assert.throws(() => loadConfig({ OPENCITY_ADMIN_SECRET: 'hunter2-short' }), (e: unknown) =>
      e instanceof ConfigError && e.message.includes('OPENCITY_ADMIN_SECRET') && !e.message.includes('hunter2') && e.message.includes('at least 16 characters'));
  });

  it('reads LOG_FORMAT (json, pretty; auto when unset)', () => {
    assert.equal(loadConfig({}).logFormat, 'auto');
    assert.equal(loadConfig({ LOG_FORMAT: 'json' }).logFormat, 'json');
    assert.equal(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat, 'pretty');
    assert.throws(() => loadConfig({ LOG_FORMAT: 'xml' }), (e: unknown) => e instanceof ConfigError && e.message.includes('LOG_FORMAT'));
  });

  it('describes every variable of the schema with its default', () => {
    const help = environmentHelp();
    for (const name of Object.keys(EnvSchema.properties)) {
      const line = help.split('\n').find((l) => l.trim().startsWith(`${name} `));
      assert.ok(line, `${name} is described`);
      assert.ok(line.includes(`(default: ${VARIABLES[name as keyof typeof VARIABLES].default})`), `${name} has its default`);
    }
  });

  it('wants AUTH_ISSUER and AUTH_JWKS_URL together', () => {
    assert.throws(() => loadConfig({ AUTH_ISSUER: 'https://kc.example.org/realms/x' }), ConfigError);
  });

  it('parses durations', () => {
    assert.equal(parseDuration('90m'), 90 * 60_000);
    assert.equal(parseDuration('3600s'), 3_600_000);
    assert.equal(parseDuration('2d'), 2 * 86_400_000);
  });
});
