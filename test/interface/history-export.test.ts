import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { HistorySite, temperature } from '../helpers/history-site.js';
import { describeEachStore } from '../helpers/platform.js';
import { findHistoryAsset, findReadings } from '../../src/storage/repositories/readings.js';
import { exportPages } from '../../src/storage/repositories/reading-export.js';

const T0 = Date.parse('2026-05-01T00:00:00.000Z');
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const ASSET = 'urn:oc:entity:exporting:environment:archive:1';
const TEMP = 'urn:oc:attributeType:temperature:ambient';
const UPDATES = 40;

describeEachStore('history export', (platform) => {
  const site = new HistorySite(platform, 'exporting');
  const get = (url: string, headers: Record<string, string> = {}) => platform().app.inject({ method: 'GET', url, headers });

  before(async () => {
    await site.register();
    await site.create(ASSET, { ...temperature('10.00'), note: { type: 'Text', value: 'a "quoted", multi\nline ñ note' } }, T0, T0 - 1000);
    for (let i = 1; i <= UPDATES; i++) {
      await site.update(ASSET, { ...temperature(`${10 + i}.50`), humidity: { type: 'Number', value: i } }, T0 + i * MIN, T0 + i * MIN - 1000);
    }
  });

  it('streams NDJSON by default, every reading oldest first, as a download', async () => {
    const res = await get(`/datasource/${ASSET}/export`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'application/x-ndjson');
    assert.equal(res.headers['content-disposition'], 'attachment; filename="urn_oc_entity_exporting_environment_archive_1.ndjson"');
    const again = await get(`/datasource/${ASSET}/export`);
    assert.equal(again.headers['content-disposition'], res.headers['content-disposition']);
    assert.equal(again.body, res.body);
    const lines = res.body.split('\n');
    assert.equal(lines.pop(), '');
    const readings = lines.map((l) => JSON.parse(l));
    // TimeInstant, temperature and note on the create; TimeInstant, temperature and humidity on each update.
    assert.equal(readings.length, 3 + 3 * UPDATES);
    assert.deepEqual(readings.find((r) => r.attrName === 'note'), {
      recvTime: iso(T0), observedAt: iso(T0 - 1000), attrName: 'note', attrType: 'Text', attrValue: 'a "quoted", multi\nline ñ note',
    });
    const times = readings.map((r) => Date.parse(r.recvTime));
    assert.deepEqual(times, [...times].sort((a, b) => a - b));
    assert.deepEqual(readings.filter((r) => r.attrName === 'temperature:ambient').slice(0, 2).map((r) => r.attrValue), ['10.00', '11.50']);
  });

  it('streams CSV with Accept: text/csv, one attribute and a range when asked', async () => {
    const res = await get(`/datasource/${ASSET}/export?attr=temperature:ambient&from=${iso(T0 + MIN)}&to=${iso(T0 + 2 * MIN)}`, { accept: 'text/csv' });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    assert.equal(res.headers['content-disposition'], 'attachment; filename="urn_oc_entity_exporting_environment_archive_1.temperature_ambient.csv"');
    assert.equal(res.body, 'recvTime,observedAt,attrName,attrType,attrValue\r\n'
      + `${iso(T0 + MIN)},${iso(T0 + MIN - 1000)},temperature:ambient,${TEMP},11.50\r\n`
      + `${iso(T0 + 2 * MIN)},${iso(T0 + 2 * MIN - 1000)},temperature:ambient,${TEMP},12.50\r\n`);
    const note = await get(`/datasource/${ASSET}/export?attr=note`, { accept: 'text/csv' });
    assert.equal(note.body.split('\r\n')[1], `${iso(T0)},${iso(T0 - 1000)},note,Text,"a ""quoted"", multi\nline ñ note"`);
  });

  it('reads page after page in the same order as the readings endpoint', async () => {
    const store = platform().ctx.store;
    const asset = await findHistoryAsset(store, ASSET);
    const all = await findReadings(store, { assetSeq: asset!.seq, attrName: undefined, range: undefined }, { kind: 'page', limit: 1000, offset: 0 });
    for (const batch of [1, 3, 7, 500]) {
      const seen: string[] = [];
      for await (const page of exportPages(store, { assetSeq: asset!.seq, attrName: undefined, range: undefined, timeIndex: 'received' }, (page) => page, batch)) {
        assert.ok(page.length <= batch);
        seen.push(...page.map((r) => `${r.recvTime} ${r.attrName} ${r.attrValue}`));
      }
      assert.deepEqual(seen, all.map((r) => `${r.recvTime} ${r.attrName} ${r.attrValue}`), `batch ${batch}`);
    }
  });

  it('gives back every value exactly as sent, whatever characters it holds, page after page', async () => {
    const id = 'urn:oc:entity:exporting:environment:archive:values';
    const values = ['"starts with a quote"', '', 'comma, and\r\nCRLF', 'back\\slash \u0001 ✓ 😀', iso(T0 + 5 * MIN - 250), '0052.00'];
    await site.create(id, { ...temperature('1.00') }, T0, T0 - 250);
    for (const [i, value] of values.entries()) {
      await site.update(id, { label: { type: 'Text', value }, seen: { type: 'DateTime', value: iso(T0 + (i + 1) * MIN - 250) } }, T0 + (i + 1) * MIN, T0 + (i + 1) * MIN - 250);
    }
    const res = await get(`/datasource/${id}/export`);
    assert.equal(res.statusCode, 200, res.body);
    const readings = res.body.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    assert.deepEqual(readings.filter((r) => r.attrName === 'label').map((r) => r.attrValue), values);
    // A value that is the text of its update's TimeInstant (as `seen` and TimeInstant are) comes back as sent.
    for (const r of readings.filter((x) => x.attrName === 'seen' || x.attrName === 'TimeInstant')) assert.equal(r.attrValue, r.observedAt);
    const store = platform().ctx.store;
    const asset = await findHistoryAsset(store, id);
    const whole: string[] = [];
    for await (const page of exportPages(store, { assetSeq: asset!.seq, attrName: undefined, range: undefined, timeIndex: 'received' }, (page) => page, 2)) {
      whole.push(...page.map((r) => JSON.stringify([r.recvTime, r.observedTime, r.attrName, r.attrType, r.attrValue])));
    }
    assert.deepEqual(whole, readings.map((r) => JSON.stringify([Date.parse(r.recvTime), Date.parse(r.observedAt), r.attrName, r.attrType, r.attrValue])));
  });

  it('answers an unknown asset or attribute with 404, a bad range with 400, before streaming', async () => {
    assert.equal((await get('/datasource/urn:oc:entity:exporting:environment:archive:404/export')).statusCode, 404);
    const attr = await get(`/datasource/${ASSET}/export?attr=pressure`);
    assert.equal(attr.statusCode, 404);
    assert.match(attr.json().description, /pressure/);
    const range = await get(`/datasource/${ASSET}/export?from=yesterday&to=${iso(T0)}`);
    assert.equal(range.statusCode, 400);
    assert.match(range.json().description, /'from'/);
  });
});
