import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prettyLine, prettyStream } from '../../src/http/pretty-log.js';
import { servedUrl, welcomeText } from '../../src/welcome.js';

describe('first start on a terminal', () => {
  it('says where the map, the API documents and the token endpoint are', () => {
    const text = welcomeText({ publicUrl: 'http://127.0.0.1:8080', generatedAdminSecret: undefined });
    assert.match(text, /map +http:\/\/127\.0\.0\.1:8080\/\n/);
    assert.match(text, /API documents +http:\/\/127\.0\.0\.1:8080\/docs\n/);
    assert.match(text, /token endpoint +http:\/\/127\.0\.0\.1:8080\/auth\/realms\/opencity\/protocol\/openid-connect\/token\n/);
    assert.doesNotMatch(text, /secret:/);
  });

  it('shows a generated admin secret once, what it is for, and the next command', () => {
    const text = welcomeText({ publicUrl: 'http://127.0.0.1:8080', generatedAdminSecret: 's3cr3t-value' });
    assert.match(text, /client_id: opencity-admin\n {2}secret: {4}s3cr3t-value\n/);
    assert.match(text, /\/permissions/);
    assert.match(text, /npx opencity site add santander/);
  });

  it('says how to recover an admin secret that was never shown', () => {
    const text = welcomeText({ publicUrl: 'http://127.0.0.1:8080', generatedAdminSecret: undefined, adminSecretNeverShown: true });
    assert.match(text, /opencity-admin exists, but the secret generated for it was never shown/);
    assert.match(text, /npx opencity client reset-secret opencity-admin\n/);
    assert.doesNotMatch(welcomeText({ publicUrl: 'http://127.0.0.1:8080', generatedAdminSecret: undefined }), /never shown/);
  });

  it('shows the port the server got when it asked for any free one', () => {
    assert.equal(servedUrl('http://127.0.0.1:0', 41234), 'http://127.0.0.1:41234');
    assert.equal(servedUrl('https://city.example.org', 41234), 'https://city.example.org');
  });
});

describe('pretty log lines', () => {
  it('turns a JSON line into time, level, message and fields', () => {
    const line = prettyLine(JSON.stringify({ level: 30, time: Date.UTC(2026, 0, 1, 10, 5, 7), pid: 1, hostname: 'h', msg: 'OpenCity is serving', url: 'http://x', startupMs: 12 }));
    assert.equal(line, '10:05:07 INFO  OpenCity is serving url=http://x startupMs=12');
  });

  it('quotes values with spaces and shows an error with its stack', () => {
    const line = prettyLine(JSON.stringify({ level: 50, time: 0, msg: 'failed', reason: 'two words', err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at x' } }));
    assert.equal(line, '00:00:00 ERROR failed reason="two words"\nError: boom\n    at x');
  });

  it('keeps a line that is not JSON as it is', () => {
    assert.equal(prettyLine('plain text\n'), 'plain text');
  });

  it('writes one readable line per JSON line it is given', () => {
    const written: string[] = [];
    prettyStream({ write: (t: string) => written.push(t) }).write(`${JSON.stringify({ level: 40, time: 0, msg: 'a' })}\n${JSON.stringify({ level: 20, time: 0, msg: 'b' })}\n`);
    assert.deepEqual(written, ['00:00:00 WARN  a\n', '00:00:00 DEBUG b\n']);
  });
});
