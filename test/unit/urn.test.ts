import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertOwnAssetId, parseAssetUrn, sitePrefix } from '../../src/domain/urn.js';
import { siteOfCaller } from '../../src/domain/site-client.js';
import { answered } from '../helpers/answered.js';

const none = { service: null, provider: null, group: null, experimenter: null, experiment: null };

describe('asset URNs', () => {
  it('splits city ids of every length the real sites used', () => {
    assert.deepEqual(parseAssetUrn('urn:oc:entity:test:1', 'test'), { ...none, site: 'test', name: '1' });
    assert.deepEqual(parseAssetUrn('urn:oc:entity:santander:parking:np3601', 'santander'), { ...none, site: 'santander', service: 'parking', name: 'np3601' });
    assert.deepEqual(parseAssetUrn('urn:oc:entity:santander:traffic:fixed:3306', 'santander'), { ...none, site: 'santander', service: 'traffic', provider: 'fixed', name: '3306' });
    assert.deepEqual(parseAssetUrn('urn:oc:entity:aarhus:visitors:dokk1:fixed:camera1', 'aarhus'),
      { ...none, site: 'aarhus', service: 'visitors', provider: 'dokk1', group: 'fixed', name: 'camera1' });
    assert.deepEqual(parseAssetUrn('urn:oc:entity:london:a:b:c:d:e', 'london'),
      { ...none, site: 'london', service: 'a', provider: 'b', group: 'c', name: 'd:e' });
  });

  it('splits experimenters ids into experimenter, experiment and name', () => {
    assert.deepEqual(parseAssetUrn('urn:oc:entity:experimenters:42:exp-7:sensor:a', 'experimenters'),
      { ...none, site: 'experimenters', experimenter: '42', experiment: 'exp-7', name: 'sensor:a' });
    assert.throws(() => answered(() => parseAssetUrn('urn:oc:entity:experimenters:42:exp-7', 'experimenters')),
      { status: 400, message: 'Asset.id of the experimenters site must be urn:oc:entity:experimenters:<experimenterId>:<experimentId>:<name>' });
  });

  it('refuses an id with nothing after the site, or an empty segment', () => {
    assert.throws(() => parseAssetUrn('urn:oc:entity:santander:', 'santander'), { message: 'Asset.id names no asset after urn:oc:entity:santander:' });
    assert.throws(() => parseAssetUrn('urn:oc:entity:santander:a::b', 'santander'), { message: 'Asset.id has an empty segment (two colons in a row, or a trailing colon)' });
    assert.throws(() => parseAssetUrn('urn:oc:entity:santander:a:', 'santander'), { message: /empty segment/ });
  });

  it('lets a site touch only its own prefix, case-sensitively', () => {
    assert.equal(sitePrefix('santander'), 'urn:oc:entity:santander:');
    assertOwnAssetId('urn:oc:entity:santander:x', 'santander');
    for (const id of ['urn:oc:entity:london:x', 'urn:oc:entity:Santander:x', 'urn:oc:entity:santanderx:y', 'urn:oc:santander:tourism:poi:beach:6', 'x']) {
      assert.throws(() => answered(() => assertOwnAssetId(id, 'santander')), { status: 400, message: 'Asset.id prefix wrong: the assets of this site start with urn:oc:entity:santander:' }, id);
    }
  });
});

describe('the calling site', () => {
  it('is the client id after ocsite-, for a caller with the role ocsite', () => {
    assert.equal(siteOfCaller({ clientId: 'ocsite-santander', roles: ['ocsite'] }), 'santander');
    assert.equal(siteOfCaller({ clientId: 'ocsite-rio-de-janeiro', roles: ['ocsite', 'other'] }), 'rio-de-janeiro');
    assert.equal(siteOfCaller({ clientId: 'ocsite-experimenters', roles: ['ocsite'] }), 'experimenters');
  });
  it('refuses a caller without the role ocsite with 403', () => {
    assert.throws(() => answered(() => siteOfCaller({ clientId: 'ocsite-santander', roles: [] })), { status: 403, kind: 'Forbidden', message: 'The role ocsite is required to use the federation interface' });
  });
  it('refuses a caller that is not a client', () => {
    assert.throws(() => answered(() => siteOfCaller({ clientId: undefined, roles: ['ocsite'] })), { status: 400, kind: 'BadRequest', message: 'You are not a client! The federation interface takes the token of a site client' });
  });
  it('refuses a client that is not a site client', () => {
    for (const clientId of ['opencity-admin', 'ocservice-santander-parking', 'OCSITE-santander', 'ocsite']) {
      assert.throws(() => answered(() => siteOfCaller({ clientId, roles: ['ocsite'] })), { status: 400, message: 'ClientID wrong. You are not a site client: site client ids start with ocsite-' }, clientId);
    }
  });
  it('refuses a site client id that names no site', () => {
    for (const clientId of ['ocsite-', 'ocsite-san:tander', 'ocsite--x', 'ocsite-a b']) {
      assert.throws(() => answered(() => siteOfCaller({ clientId, roles: ['ocsite'] })), { status: 400, message: `ClientID wrong: ${clientId} does not name a site (ocsite-<site>)` }, clientId);
    }
  });
});
