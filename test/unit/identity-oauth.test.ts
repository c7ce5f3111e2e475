import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { grantedScope, hasScope, isCodeVerifier, isS256Challenge, isValidRedirectUri, pkceMatches, redirectUriAllowed, s256Challenge, withQuery } from '../../src/domain/oauth.js';

describe('PKCE (RFC 7636)', () => {
  it('computes the S256 challenge of the RFC example', () => {
    // RFC 7636, Appendix B.
    assert.equal(s256Challenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'), 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    assert.ok(pkceMatches('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'));
  });

  it('refuses a verifier that does not match, or is too short, too long, or has other characters', () => {
    const challenge = s256Challenge('a'.repeat(43));
    assert.equal(pkceMatches('b'.repeat(43), challenge), false);
    assert.equal(pkceMatches('a'.repeat(42), s256Challenge('a'.repeat(42))), false);
    assert.equal(pkceMatches('a'.repeat(129), s256Challenge('a'.repeat(129))), false);
    assert.equal(pkceMatches(`${'a'.repeat(42)}+`, s256Challenge(`${'a'.repeat(42)}+`)), false);
    assert.equal(isCodeVerifier(`${'a'.repeat(40)}-._~`), true);
  });

  it('accepts only well-formed S256 challenges', () => {
    assert.equal(isS256Challenge('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'), true);
    assert.equal(isS256Challenge('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-c'), false);
    assert.equal(isS256Challenge('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw+cM'), false);
  });

  it('matches every valid verifier with its own challenge and no other', () => {
    const verifier = fc.stringMatching(/^[A-Za-z0-9._~-]{43,128}$/);
    fc.assert(fc.property(verifier, verifier, (a, b) => {
      assert.equal(pkceMatches(a, s256Challenge(a)), true);
      if (a !== b) assert.equal(pkceMatches(b, s256Challenge(a)), false);
    }), { numRuns: 200 });
  });
});

describe('scopes', () => {
  it('always grants profile and email, keeps known scopes in a stable order, drops unknown ones', () => {
    assert.equal(grantedScope(undefined), 'profile email');
    assert.equal(grantedScope(''), 'profile email');
    assert.equal(grantedScope('openid'), 'openid profile email');
    assert.equal(grantedScope('offline_access   openid bogus'), 'openid profile email offline_access');
    assert.ok(hasScope('openid profile', 'openid'));
    assert.equal(hasScope('openidx profile', 'openid'), false);
  });
});

describe('redirect URIs', () => {
  it('match exactly, never by prefix or with another query', () => {
    const registered = ['https://app.example/cb', 'http://127.0.0.1:8080/'];
    assert.ok(redirectUriAllowed('https://app.example/cb', registered));
    assert.equal(redirectUriAllowed('https://app.example/cb/', registered), false);
    assert.equal(redirectUriAllowed('https://app.example/cb?x=1', registered), false);
    assert.equal(redirectUriAllowed('https://app.example.evil/cb', registered), false);
    assert.equal(redirectUriAllowed('http://127.0.0.1:8081/', registered), false);
  });

  it('must be absolute, without a fragment or a script scheme', () => {
    assert.ok(isValidRedirectUri('https://app.example/cb'));
    assert.ok(isValidRedirectUri('com.example.app:/oauth'));
    assert.equal(isValidRedirectUri('/relative'), false);
    assert.equal(isValidRedirectUri('https://app.example/cb#x'), false);
    assert.equal(isValidRedirectUri('javascript:alert(1)'), false);
  });

  it('get the response parameters appended to the query they already have', () => {
    assert.equal(withQuery('https://app.example/cb?tab=2', { code: 'c d', state: undefined }), 'https://app.example/cb?tab=2&code=c+d');
  });
});
