import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { registerClient } from '../../src/identity/clients.js';
import { registerUser } from '../../src/identity/users.js';
import { ADDRESS_BACKOFF, PRINCIPAL_BACKOFF } from '../../src/identity/failed-attempts.js';
import { describeEachStore, type TestPlatform } from '../helpers/platform.js';
import { OIDC } from '../helpers/identity.js';

/** A token request as a client at `address` sends it, the client id spelled as given in HTTP Basic. */
function token(p: TestPlatform, spelledId: string, secret: string, address = '127.0.0.1', form: Record<string, string> = { grant_type: 'client_credentials' }): Promise<LightMyRequestResponse> {
  return p.app.inject({
    method: 'POST', url: `${OIDC}/token`, remoteAddress: address,
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${spelledId}:${encodeURIComponent(secret)}`).toString('base64')}` },
    payload: new URLSearchParams(form).toString(),
  });
}

/** Spellings of one client id in HTTP Basic (RFC 6749 §2.3.1 form-encoding): each decodes to `h4tool1`. */
const SPELLINGS = ['h4tool1', '%68%34tool1', 'h%34tool1', '%684tool1', 'h4%74ool1', 'h4t%6F%6Fl1', '%68%34%74%6f%6f%6c%31'];

describeEachStore('identity: the token endpoint\'s rate limit keys on the client it resolves', (platform) => {
  it('counts every spelling of one client id in one bucket', async () => {
    const p = platform();
    const { secret } = await registerClient(p.ctx.store, p.clock, { clientId: 'h4tool1' });
    const answers = [];
    for (const spelling of SPELLINGS) answers.push((await token(p, spelling, secret, '127.0.0.9')).statusCode);
    assert.deepEqual(answers, [200, 200, 200, 200, 200, 429, 429]);
  });
}, { tokenRateLimit: 5 });

describeEachStore('identity: back-off after failed sign-ins', (platform) => {
  it('makes a client wait after repeated failures, whatever the spelling, and refuses even the right secret meanwhile', async () => {
    const p = platform();
    const { secret } = await registerClient(p.ctx.store, p.clock, { clientId: 'h4tool1' });
    for (let i = 0; i < ADDRESS_BACKOFF.freeFailures; i++) {
      assert.equal((await token(p, SPELLINGS[i % SPELLINGS.length] as string, 'wrong-guess', '127.0.0.2')).statusCode, 401);
    }
    assert.equal((await token(p, 'h4tool1', 'wrong-guess', '127.0.0.2')).statusCode, 401);
    const waiting = await token(p, '%68%34tool1', secret, '127.0.0.2');
    assert.equal(waiting.statusCode, 429);
    assert.equal(waiting.headers['retry-after'], '1');
    assert.equal(waiting.json().error, 'TooManyRequests');
    assert.equal(waiting.headers['cache-control'], undefined, 'no token in it');
    // Each further failure doubles the wait, up to the cap.
    const waits: string[] = [];
    for (let i = 0; i < 8; i++) {
      p.clock.advance(120_000);
      assert.equal((await token(p, 'h4tool1', 'wrong-guess', '127.0.0.2')).statusCode, 401);
      waits.push(String((await token(p, 'h4tool1', 'wrong-guess', '127.0.0.2')).headers['retry-after']));
    }
    assert.deepEqual(waits, ['2', '4', '8', '16', '32', '60', '60', '60']);
    // Attempts during the wait are not counted: once it is over, the right secret works.
    for (let i = 0; i < 50; i++) assert.equal((await token(p, 'h4tool1', 'wrong-guess', '127.0.0.2')).statusCode, 429);
    p.clock.advance(60_000);
    assert.equal((await token(p, 'h4tool1', secret, '127.0.0.2')).statusCode, 200);
    assert.equal((await token(p, 'h4tool1', 'wrong-guess', '127.0.0.2')).statusCode, 401, 'a success forgets the failures');
  });

  it('holds guesses from many addresses together, without locking the site out where it works, nor for more than minutes', async () => {
    const p = platform();
    const { secret } = await registerClient(p.ctx.store, p.clock, { clientId: 'ocsite-busy' });
    assert.equal((await token(p, 'ocsite-busy', secret, '127.0.0.50')).statusCode, 200, 'the site signs in from its address');
    let refused = 0;
    let waited = 0;
    for (let n = 0; n < 200; n++) {
      const res = await token(p, 'ocsite-busy', 'wrong-guess', `127.0.1.${n % 200}`);
      if (res.statusCode === 429) {
        refused++;
        waited = Math.max(waited, Number(res.headers['retry-after']));
        p.clock.advance(Number(res.headers['retry-after']) * 1000);
      } else assert.equal(res.statusCode, 401);
    }
    assert.ok(refused > 0, 'the client\'s own back-off holds guesses from every address');
    assert.ok(waited <= PRINCIPAL_BACKOFF.maxWaitMs / 1000, 'never more than five minutes');
    // The attack goes on: once the open time after the last wait is over, one more guess makes everyone
    // wait again; the site, where it signed in before, is not held.
    p.clock.advance(PRINCIPAL_BACKOFF.maxOpenMs);
    await token(p, 'ocsite-busy', 'wrong-guess', '127.0.1.7');
    assert.equal((await token(p, 'ocsite-busy', 'wrong-guess', '127.0.1.8')).statusCode, 429);
    assert.equal((await token(p, 'ocsite-busy', secret, '127.0.0.50')).statusCode, 200);
    // From a new address it waits at most the cap: the wait is followed by a time that holds no one.
    const elsewhere = await token(p, 'ocsite-busy', secret, '127.0.0.51');
    assert.equal(elsewhere.statusCode, 429);
    p.clock.advance(Number(elsewhere.headers['retry-after']) * 1000);
    assert.equal((await token(p, 'ocsite-busy', secret, '127.0.0.51')).statusCode, 200);
  });

  it('makes a user wait after repeated wrong passwords, by user name and e-mail address together', async () => {
    const p = platform();
    const { secret } = await registerClient(p.ctx.store, p.clock, { clientId: 'password-tool' });
    await registerUser(p.ctx.store, p.clock, { username: 'carol', email: 'carol@example.org', password: 'correct horse battery', roles: [] });
    const password = (username: string, pass: string) => token(p, 'password-tool', secret, '127.0.0.3', { grant_type: 'password', username, password: pass });
    for (let i = 0; i <= ADDRESS_BACKOFF.freeFailures; i++) {
      assert.equal((await password(i % 2 === 0 ? 'carol' : 'carol@example.org', 'not it')).statusCode, 400);
    }
    const waiting = await password('carol@example.org', 'correct horse battery');
    assert.equal(waiting.statusCode, 429);
    assert.ok(Number(waiting.headers['retry-after']) >= 1);
    p.clock.advance(Number(waiting.headers['retry-after']) * 1000);
    assert.equal((await password('carol', 'correct horse battery')).statusCode, 200);
  });
}, { tokenRateLimit: 0 });
