import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { isNumericValue } from '../../src/domain/aggregation.js';
import { bearer, describeEachStore, type TestPlatform } from '../helpers/platform.js';

const SERVICE = { 'platform-service': 'opencity' };
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const TEMP_TYPE = 'urn:oc:attributeType:temperature:ambient';
const ASSET = 'urn:oc:entity:santander:environmental:fixed:3248';

interface Reading { recvTime: string; attrName: string; attrType: string; attrValue: string }

/** Pushes assets through the federation interface at controlled receive times. */
class Site {
  private token = '';
  private issuedAt = Number.NaN;

  private constructor(private readonly platform: () => TestPlatform, private readonly site: string) {}

  static async register(platform: () => TestPlatform, site: string): Promise<Site> {
    await platform().siteToken(site);
    return new Site(platform, site);
  }

  /** Sets the clock to `at`, with a token valid then (tokens live 300 s). */
  private async tokenAt(at: number): Promise<string> {
    const p = this.platform();
    p.clock.set(at);
    if (!(at >= this.issuedAt && at - this.issuedAt < 200_000)) {
      this.token = await p.clientToken(`ocsite-${this.site}`);
      this.issuedAt = at;
    }
    return this.token;
  }

  private async send(url: string, body: Record<string, unknown>, at: number, expected: number): Promise<void> {
    const token = await this.tokenAt(at);
    const res = await this.platform().app.inject({
      method: 'POST', url, headers: { ...bearer(token), ...SERVICE, 'content-type': 'application/json' },
      payload: { TimeInstant: { type: 'urn:oc:attributeType:ISO8601', value: iso(at) }, ...body },
    });
    assert.equal(res.statusCode, expected, res.body);
  }

  async remove(id: string, at: number): Promise<void> {
    const token = await this.tokenAt(at);
    const res = await this.platform().app.inject({ method: 'DELETE', url: `/federation/v2/entities/${id}`, headers: { ...bearer(token), ...SERVICE } });
    assert.equal(res.statusCode, 204, res.body);
  }

  create(id: string, attrs: Record<string, unknown>, at: number): Promise<void> {
    return this.send('/federation/v2/entities', { id, type: 'urn:oc:entityType:iotdevice', ...attrs }, at, 201);
  }

  update(id: string, attrs: Record<string, unknown>, at: number): Promise<void> {
    return this.send(`/federation/v2/entities/${id}/attrs`, attrs, at, 204);
  }
}

const temp = (value: unknown) => ({ 'temperature:ambient': { type: TEMP_TYPE, value } });

describeEachStore('datasource interface', (platform) => {
  const get = (url: string, headers: Record<string, string> = {}) => platform().app.inject({ method: 'GET', url, headers });
  const json = async (url: string, headers: Record<string, string> = {}) => {
    const res = await get(url, headers);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    return res.json();
  };
  const expectError = async (url: string, status: number, error: string, mentions: string) => {
    const res = await get(url);
    assert.equal(res.statusCode, status, res.body);
    assert.equal(res.headers['content-type'], 'application/json');
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['description', 'error']);
    assert.equal(body.error, error);
    assert.ok(body.description.includes(mentions), `${body.description} should mention ${mentions}`);
  };

  /** Every reading of the asset, page after page of `limit`. */
  const everyPage = async (id: string, limit: number): Promise<Reading[]> => {
    const seen: Reading[] = [];
    for (let offset = 0; ; offset += limit) {
      const page = (await json(`/datasource/${id}/readings?limit=${limit}&offset=${offset}`)).readings as Reading[];
      seen.push(...page);
      if (page.length < limit) return seen;
    }
  };

  let santander: Site;
  // Receive times of the four pushes of ASSET, 5 minutes apart, the third at a whole minute plus 30 s.
  const at = [T0, T0 + 300_000, T0 + 630_000, T0 + 900_000];

  before(async () => {
    santander = await Site.register(platform, 'santander');
    await santander.create(ASSET, {
      ...temp('10.7'),
      relativeHumidity: { type: 'urn:oc:attributeType:relativeHumidity', value: 55 },
      position: { type: 'coords', value: '43.4623,-3.80998' },
    }, at[0]!);
    await santander.update(ASSET, { ...temp('10.9'), status: { type: 'urn:oc:attributeType:status', value: { ok: true, note: 'a "b", c' } } }, at[1]!);
    await santander.update(ASSET, { ...temp(11), relativeHumidity: { type: 'urn:oc:attributeType:relativeHumidity', value: 54.5 } }, at[2]!);
    await santander.update(ASSET, temp('11.2'), at[3]!);
  });

  it('returns what federation recorded, exactly, oldest first, with types and string values', async () => {
    const body = await json(`/datasource/${ASSET}/readings`);
    const timeInstant = (t: number): Reading => ({ recvTime: iso(t), attrName: 'TimeInstant', attrType: 'urn:oc:attributeType:ISO8601', attrValue: iso(t) });
    assert.deepEqual(body, {
      readings: [
        timeInstant(at[0]!),
        { recvTime: iso(at[0]!), attrName: 'temperature:ambient', attrType: TEMP_TYPE, attrValue: '10.7' },
        { recvTime: iso(at[0]!), attrName: 'relativeHumidity', attrType: 'urn:oc:attributeType:relativeHumidity', attrValue: '55' },
        { recvTime: iso(at[0]!), attrName: 'position', attrType: 'coords', attrValue: '43.4623,-3.80998' },
        timeInstant(at[1]!),
        { recvTime: iso(at[1]!), attrName: 'temperature:ambient', attrType: TEMP_TYPE, attrValue: '10.9' },
        { recvTime: iso(at[1]!), attrName: 'status', attrType: 'urn:oc:attributeType:status', attrValue: '{"ok":true,"note":"a \\"b\\", c"}' },
        timeInstant(at[2]!),
        { recvTime: iso(at[2]!), attrName: 'temperature:ambient', attrType: TEMP_TYPE, attrValue: '11' },
        { recvTime: iso(at[2]!), attrName: 'relativeHumidity', attrType: 'urn:oc:attributeType:relativeHumidity', attrValue: '54.5' },
        timeInstant(at[3]!),
        { recvTime: iso(at[3]!), attrName: 'temperature:ambient', attrType: TEMP_TYPE, attrValue: '11.2' },
      ],
    });
  });

  it('lists the recorded attributes, sorted', async () => {
    assert.deepEqual(await json(`/datasource/${ASSET}/attributes`), {
      attributes: ['TimeInstant', 'position', 'relativeHumidity', 'status', 'temperature:ambient'].sort(),
    });
  });

  it('returns one attribute, and its values alone with values=true', async () => {
    const body = await json(`/datasource/${ASSET}/temperature:ambient/readings`);
    assert.deepEqual(body.readings.map((r: Reading) => [r.recvTime, r.attrValue]), at.map((t, i) => [iso(t), ['10.7', '10.9', '11', '11.2'][i]]));
    assert.ok(body.readings.every((r: Reading) => r.attrName === 'temperature:ambient' && r.attrType === TEMP_TYPE));
    assert.deepEqual(await json(`/datasource/${ASSET}/temperature:ambient/readings?values=true`), ['10.7', '10.9', '11', '11.2']);
    assert.deepEqual(await json(`/datasource/${ASSET}/temperature:ambient/readings?values`), ['10.7', '10.9', '11', '11.2']);
    assert.equal((await json(`/datasource/${ASSET}/temperature:ambient/readings?values=false`)).readings.length, 4);
  });

  it('accepts the asset id and attribute name percent-encoded', async () => {
    const body = await json(`/datasource/${encodeURIComponent(ASSET)}/${encodeURIComponent('temperature:ambient')}/readings?values=1`);
    assert.deepEqual(body, ['10.7', '10.9', '11', '11.2']);
  });

  it('filters by date only when both bounds are given, both inclusive, with or without seconds', async () => {
    const values = async (query: string) => json(`/datasource/${ASSET}/temperature:ambient/readings?values=true&${query}`);
    // exactly on the first and second readings
    assert.deepEqual(await values(`from=${iso(at[0]!)}&to=${iso(at[1]!)}`), ['10.7', '10.9']);
    // one millisecond inside each edge excludes the edge readings
    assert.deepEqual(await values(`from=${iso(at[0]! + 1)}&to=${iso(at[3]! - 1)}`), ['10.9', '11']);
    // without seconds: 00:05 to 00:10 names 00:05:00.000 to 00:10:00.000, so the reading at 00:10:30 is out
    assert.deepEqual(await values('from=2026-01-01T00:05Z&to=2026-01-01T00:10Z'), ['10.9']);
    assert.deepEqual(await values('from=2026-01-01T00:05Z&to=2026-01-01T00:11Z'), ['10.9', '11']);
    // with seconds and a zone offset
    assert.deepEqual(await values(`from=${encodeURIComponent('2026-01-01T01:10:30+01:00')}&to=2026-01-01T00:15:00Z`), ['11', '11.2']);
    // a single instant
    assert.deepEqual(await values(`from=${iso(at[2]!)}&to=${iso(at[2]!)}`), ['11']);
    // one bound alone: no filter
    assert.deepEqual(await values(`from=${iso(at[3]!)}`), ['10.7', '10.9', '11', '11.2']);
    assert.deepEqual(await values(`to=${iso(at[0]!)}`), ['10.7', '10.9', '11', '11.2']);
    // an empty window is 200 with no readings
    assert.deepEqual(await json(`/datasource/${ASSET}/readings?from=2025-01-01T00:00Z&to=2025-01-02T00:00Z`), { readings: [] });
  });

  it('pages with limit and offset, and gives the newest N with lastN, still oldest first', async () => {
    const values = async (query: string) => json(`/datasource/${ASSET}/temperature:ambient/readings?values=true&${query}`);
    assert.deepEqual(await values('limit=2'), ['10.7', '10.9']);
    assert.deepEqual(await values('limit=2&offset=2'), ['11', '11.2']);
    assert.deepEqual(await values('offset=3'), ['11.2']);
    assert.deepEqual(await values('offset=4'), []);
    assert.deepEqual(await values('lastN=2'), ['11', '11.2']);
    assert.deepEqual(await values('lastN=10'), ['10.7', '10.9', '11', '11.2']);
    assert.deepEqual(await values(`lastN=1&from=${iso(at[0]!)}&to=${iso(at[2]!)}`), ['11']);
    const whole = await json(`/datasource/${ASSET}/readings?lastN=3`);
    assert.deepEqual(whole.readings.map((r: Reading) => r.attrName), ['relativeHumidity', 'TimeInstant', 'temperature:ambient']);
  });

  it('answers CSV with a header row when asked by Accept', async () => {
    const res = await get(`/datasource/${ASSET}/readings?limit=7`, { accept: 'text/csv' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    assert.equal(res.body, [
      'recvTime,attrName,attrType,attrValue',
      `${iso(at[0]!)},TimeInstant,urn:oc:attributeType:ISO8601,${iso(at[0]!)}`,
      `${iso(at[0]!)},temperature:ambient,${TEMP_TYPE},10.7`,
      `${iso(at[0]!)},relativeHumidity,urn:oc:attributeType:relativeHumidity,55`,
      `${iso(at[0]!)},position,coords,"43.4623,-3.80998"`,
      `${iso(at[1]!)},TimeInstant,urn:oc:attributeType:ISO8601,${iso(at[1]!)}`,
      `${iso(at[1]!)},temperature:ambient,${TEMP_TYPE},10.9`,
      `${iso(at[1]!)},status,urn:oc:attributeType:status,"{""ok"":true,""note"":""a \\""b\\"", c""}"`,
      '',
    ].join('\r\n'));
    const values = await get(`/datasource/${ASSET}/temperature:ambient/readings?values=true`, { accept: 'text/csv' });
    assert.equal(values.body, 'attrValue\r\n10.7\r\n10.9\r\n11\r\n11.2\r\n');
    // JSON stays the default for browsers and wildcards
    assert.match(String((await get(`/datasource/${ASSET}/readings`, { accept: 'text/html,*/*;q=0.8' })).headers['content-type']), /^application\/json/);
  });

  it('answers 404 for an unknown asset or attribute, or another type than asked', async () => {
    await expectError('/datasource/urn:oc:entity:santander:environmental:fixed:nope/readings', 404, 'NotFound', 'urn:oc:entity:santander:environmental:fixed:nope');
    await expectError('/datasource/urn:oc:entity:santander:environmental:fixed:nope/attributes', 404, 'NotFound', 'nope');
    await expectError('/datasource/urn:oc:entity:santander:environmental:fixed:nope/temperature/readings', 404, 'NotFound', 'nope');
    await expectError(`/datasource/${ASSET}/noiseLevel/readings`, 404, 'NotFound', 'noiseLevel');
    await expectError(`/datasource/${ASSET}/readings?type=urn:oc:entityType:bikeStation`, 404, 'NotFound', ASSET);
    // Of another type than asked, an asset answers as an unknown one, whatever attribute is named.
    const otherType = await get(`/datasource/${ASSET}/noiseLevel/readings?type=urn:oc:entityType:bikeStation`);
    assert.equal(otherType.statusCode, 404);
    assert.equal(otherType.json().description, (await get('/datasource/urn:oc:entity:santander:environmental:fixed:nope/noiseLevel/readings')).json().description
      .replace('urn:oc:entity:santander:environmental:fixed:nope', ASSET));
    assert.equal((await json(`/datasource/${ASSET}/readings?type=urn:oc:entityType:iotdevice&limit=1`)).readings.length, 1);
    await expectError('/datasource/nothing-here', 404, 'NotFound', 'No route');
  });

  it('answers 400 naming a bad parameter', async () => {
    const base = `/datasource/${ASSET}/temperature:ambient/readings`;
    for (const [query, name] of [
      ['limit=0', 'limit'], ['limit=1001', 'limit'], ['limit=abc', 'limit'], ['limit=', 'limit'], ['limit=2.5', 'limit'],
      ['offset=-1', 'offset'], ['offset=x', 'offset'], ['from=yesterday&to=2026-01-02T00:00Z', 'from'], ['to=2026-02-30T00:00Z', 'to'],
      ['from=2026-01-02T00:00Z&to=2026-01-01T00:00Z', 'from'], ['lastN=0', 'lastN'], ['lastN=5&limit=5', 'lastN'],
      ['values=maybe', 'values'], ['aggrMethod=median&aggrPeriod=hour', 'aggrMethod'], ['aggrMethod=avg', 'aggrPeriod'],
      ['aggrMethod=avg&aggrPeriod=week', 'aggrPeriod'], ['aggrMethod=avg&aggrPeriod=hour&lastN=2', 'lastN'],
      ['limit=1&limit=2', 'limit'],
    ]) {
      await expectError(`${base}?${query}`, 400, 'BadRequest', `'${name}'`);
    }
    await expectError(`/datasource/${ASSET}/readings?values=true`, 400, 'BadRequest', `'values'`);
    await expectError(`/datasource/${ASSET}/readings?aggrMethod=avg&aggrPeriod=hour`, 400, 'BadRequest', `'aggrMethod'`);
    // a bad parameter is reported even for an unknown asset: the request itself is wrong
    await expectError('/datasource/urn:oc:entity:santander:x/readings?limit=0', 400, 'BadRequest', `'limit'`);
  });

  it('refuses an invalid bearer token rather than answering anonymously', async () => {
    const res = await get(`/datasource/${ASSET}/readings`, bearer('not-a-token'));
    assert.equal(res.statusCode, 401);
  });

  it('keeps the history of a deleted asset readable', async () => {
    const id = 'urn:oc:entity:santander:environmental:fixed:gone';
    await santander.create(id, temp('9.5'), T0);
    await santander.remove(id, T0 + 1000);
    assert.deepEqual(await json(`/datasource/${id}/temperature:ambient/readings?values=true`), ['9.5']);
    assert.deepEqual(await json(`/datasource/${id}/attributes`), { attributes: ['TimeInstant', 'temperature:ambient'] });
  });

  it('aggregates numeric values per minute, hour and day, as computed here', async () => {
    const id = 'urn:oc:entity:santander:environmental:fixed:aggr';
    // 3 days of readings every 14 minutes 26 seconds, with a few values that are not numbers
    const start = T0 + 86_400_000 * 10 + 123;
    const pushed: Array<{ t: number; value: string }> = [];
    for (let i = 0; i < 300; i++) {
      const t = start + i * 866_000;
      const value = i % 37 === 5 ? 'n/a' : i % 53 === 7 ? 'true' : String(Math.round(Math.sin(i / 10) * 1000) / 100 + (i % 7));
      pushed.push({ t, value });
      if (i === 0) await santander.create(id, temp(value), t);
      else await santander.update(id, temp(value), t);
    }
    const numbers = pushed.filter((p) => /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(p.value));
    assert.ok(numbers.length < pushed.length);

    const expected = (periodMs: number, method: string, from = -Infinity, to = Infinity) => {
      const buckets = new Map<number, number[]>();
      for (const p of numbers) {
        if (p.t < from || p.t > to) continue;
        const b = Math.floor(p.t / periodMs) * periodMs;
        buckets.set(b, [...(buckets.get(b) ?? []), Number(p.value)]);
      }
      return [...buckets.entries()].sort(([a], [b]) => a - b).map(([b, vs]) => {
        const sum = vs.reduce((x, y) => x + y, 0);
        const value = { avg: sum / vs.length, min: Math.min(...vs), max: Math.max(...vs), sum, count: vs.length }[method]!;
        return { start: iso(b), count: vs.length, value };
      });
    };
    const close = (actual: Array<{ start: string; count: number; value: number }>, wanted: ReturnType<typeof expected>) => {
      assert.equal(actual.length, wanted.length);
      actual.forEach((a, i) => {
        const w = wanted[i]!;
        assert.equal(a.start, w.start);
        assert.equal(a.count, w.count);
        assert.ok(Math.abs(a.value - w.value) < 1e-9 * Math.max(1, Math.abs(w.value)), `${a.start}: ${a.value} vs ${w.value}`);
      });
    };

    for (const [period, periodMs] of [['minute', 60_000], ['hour', 3_600_000], ['day', 86_400_000]] as const) {
      for (const method of ['avg', 'min', 'max', 'sum', 'count']) {
        const body = await json(`/datasource/${id}/temperature:ambient/readings?aggrMethod=${method}&aggrPeriod=${period}`);
        assert.deepEqual(Object.keys(body), ['aggregates']);
        close(body.aggregates, expected(periodMs, method).slice(0, 1000));
      }
    }
    // within a range, paged by buckets
    const from = start + 86_400_000 / 2;
    const to = start + 86_400_000 * 2;
    const wanted = expected(3_600_000, 'avg', from, to);
    const page1 = await json(`/datasource/${id}/temperature:ambient/readings?aggrMethod=avg&aggrPeriod=hour&from=${iso(from)}&to=${iso(to)}&limit=10`);
    const page2 = await json(`/datasource/${id}/temperature:ambient/readings?aggrMethod=avg&aggrPeriod=hour&from=${iso(from)}&to=${iso(to)}&limit=1000&offset=10`);
    close([...page1.aggregates, ...page2.aggregates], wanted);
    assert.equal(page1.aggregates.length, 10);

    const csv = await get(`/datasource/${id}/temperature:ambient/readings?aggrMethod=count&aggrPeriod=day`, { accept: 'text/csv' });
    assert.equal(csv.body, ['start,count,value', ...expected(86_400_000, 'count').map((b) => `${b.start},${b.count},${b.value}`), ''].join('\r\n'));

    // an attribute without numbers has no buckets
    assert.deepEqual(await json(`/datasource/${ASSET}/status/readings?aggrMethod=avg&aggrPeriod=day`), { aggregates: [] });
  });

  it('aggregates exactly the values the numeric grammar accepts, on every store', async () => {
    const id = 'urn:oc:entity:santander:environmental:fixed:grammar';
    const values: unknown[] = [
      '10.7', '-0', '0', '55', 1.5e3, '2.5e-3', '1E+5', '1e99', '-1.5E-99', '123456789012345678901234567890', 7, -2.25,
      '', ' 1', '1 ', '+1', '01', '.5', '5.', '1e', '1e100', '1e999', 'NaN', 'Infinity', '0x10', 'true', true, null,
      '"1"', '[1]', { v: 1 }, '1,5', 'n/a', '1'.repeat(41), '1-2', '--1', '1e5.5',
    ];
    const start = T0 + 86_400_000 * 30;
    for (let i = 0; i < values.length; i++) {
      const attrs = { mixed: { type: 'urn:oc:attributeType:mixed', value: values[i] } };
      if (i === 0) await santander.create(id, attrs, start + i * 1000);
      else await santander.update(id, attrs, start + i * 1000);
    }
    const stored = (await json(`/datasource/${id}/mixed/readings?values=true`)) as string[];
    assert.equal(stored.length, values.length);
    const numbers = stored.filter(isNumericValue).map(Number);
    assert.ok(numbers.length >= 12 && numbers.length < stored.length);
    const [count] = (await json(`/datasource/${id}/mixed/readings?aggrMethod=count&aggrPeriod=day`)).aggregates;
    assert.deepEqual(count, { start: iso(Math.floor(start / 86_400_000) * 86_400_000), count: numbers.length, value: numbers.length });
    const [max] = (await json(`/datasource/${id}/mixed/readings?aggrMethod=max&aggrPeriod=day`)).aggregates;
    assert.equal(max.value, Math.max(...numbers));
    const [min] = (await json(`/datasource/${id}/mixed/readings?aggrMethod=min&aggrPeriod=day`)).aggregates;
    assert.equal(min.value, Math.min(...numbers));
  });

  it('pages through 5,000 readings, each exactly once', async () => {
    const id = 'urn:oc:entity:santander:environmental:fixed:busy';
    const start = T0 + 86_400_000 * 20;
    const attrs = (i: number) => ({
      ...temp(String(i)),
      noise: { type: 'urn:oc:attributeType:soundPressureLevel:ambient', value: i },
      battery: { type: 'urn:oc:attributeType:batteryLevel', value: `b${i}` },
    });
    for (let i = 0; i < 1250; i++) {
      // every tenth update shares its receive time with the previous one: ties keep write order
      const t = start + (i - Math.floor(i / 10)) * 1000;
      if (i === 0) await santander.create(id, attrs(i), t);
      else await santander.update(id, attrs(i), t);
    }
    for (const limit of [1000, 700]) {
      const seen = await everyPage(id, limit);
      assert.equal(seen.length, 5000);
      // each update's four readings, in update order
      const temps = seen.filter((r) => r.attrName === 'temperature:ambient').map((r) => Number(r.attrValue));
      assert.deepEqual(temps, Array.from({ length: 1250 }, (_, i) => i));
      // TimeInstant readings of two updates in one millisecond are equal; every other reading is unique
      const others = seen.filter((r) => r.attrName !== 'TimeInstant');
      assert.equal(others.length, 3750);
      assert.equal(new Set(others.map((r) => `${r.attrName}|${r.attrValue}`)).size, 3750);
      for (let i = 1; i < seen.length; i++) assert.ok(seen[i - 1]!.recvTime <= seen[i]!.recvTime);
    }
    const noise: string[] = [];
    for (let offset = 0; offset < 1250; offset += 400) {
      noise.push(...await json(`/datasource/${id}/noise/readings?values=true&limit=400&offset=${offset}`));
    }
    assert.deepEqual(noise, Array.from({ length: 1250 }, (_, i) => String(i)));
  });

  it('merges the readings of an asset with more attributes than one statement merges, in time and write order', async () => {
    const id = 'urn:oc:entity:santander:environmental:fixed:many';
    const start = T0 + 86_400_000 * 40;
    const names = Array.from({ length: 70 }, (_, i) => `a${String(i).padStart(2, '0')}`);
    const expected: Array<[string, string, string]> = [];
    const push = async (k: number, subset: string[]) => {
      // every fifth push shares its receive time with the previous one: ties keep write order
      const t = start + (k - Math.floor(k / 5)) * 1000;
      const attrs = Object.fromEntries(subset.map((n) => [n, { type: 'urn:oc:attributeType:level', value: `${n}-${k}` }]));
      if (k === 0) await santander.create(id, attrs, t);
      else await santander.update(id, attrs, t);
      expected.push([iso(t), 'TimeInstant', iso(t)], ...subset.map((n): [string, string, string] => [iso(t), n, `${n}-${k}`]));
    };
    await push(0, names);
    for (let k = 1; k <= 30; k++) await push(k, [names[(k * 7) % 70]!, names[(k * 13 + 5) % 70]!, names[69 - k]!]);
    const shape = (r: Reading): [string, string, string] => [r.recvTime, r.attrName, r.attrValue];
    for (const limit of [1000, 37]) {
      assert.deepEqual((await everyPage(id, limit)).map(shape), expected);
    }
    assert.deepEqual((await json(`/datasource/${id}/readings?lastN=50`)).readings.map(shape), expected.slice(-50));
    const [from, to] = [iso(start + 8_000), iso(start + 15_000)];
    assert.deepEqual((await json(`/datasource/${id}/readings?from=${from}&to=${to}`)).readings.map(shape), expected.filter(([t]) => t >= from && t <= to));
    assert.deepEqual((await json(`/datasource/${id}/readings?from=${from}&to=${to}&lastN=4`)).readings.map(shape), expected.filter(([t]) => t >= from && t <= to).slice(-4));
  });

  it('answers a range asked again as before, until a reading enters the range', async () => {
    const id = 'urn:oc:entity:santander:environmental:fixed:kept-1';
    const t1 = T0 + 86_400_000 * 100;
    await santander.create(id, temp('1.5'), t1);
    await santander.update(id, temp('2.5'), t1 + 60_000);
    const range = `from=${iso(t1 - 1000)}&to=${iso(t1 + 600_000)}`;
    const values = async (extra = '') => (await json(`/datasource/${id}/temperature:ambient/readings?${range}&values=true${extra}`)) as string[];
    const readings = `/datasource/${id}/temperature:ambient/readings?${range}`;
    const hourly = `/datasource/${id}/temperature:ambient/readings?${range}&aggrMethod=count&aggrPeriod=hour`;
    const csv = () => get(readings, { accept: 'text/csv' });

    assert.deepEqual(await values(), ['1.5', '2.5']);
    const first = await get(readings);
    const again = await get(readings);
    assert.equal(again.body, first.body);
    assert.equal(again.headers['content-length'], first.headers['content-length']);
    assert.deepEqual((await json(hourly)).aggregates.map((b: { count: number }) => b.count), [2]);
    // the same URL in each format, asked again: each keeps its own answer
    for (let i = 0; i < 3; i++) {
      const asCsv = await csv();
      assert.match(String(asCsv.headers['content-type']), /^text\/csv/);
      assert.equal(asCsv.body.trim().split('\n').length, 3);
      const asJson = await get(readings);
      assert.match(String(asJson.headers['content-type']), /^application\/json/);
      assert.equal(asJson.body, first.body);
    }

    // a reading inside the range: every form of the answer shows it
    await santander.update(id, temp('3.5'), t1 + 120_000);
    assert.deepEqual(await values(), ['1.5', '2.5', '3.5']);
    assert.equal((await json(readings)).readings.length, 3);
    assert.deepEqual((await json(hourly)).aggregates.map((b: { count: number }) => b.count), [3]);
    assert.equal((await csv()).body.trim().split('\n').length, 4);

    // one outside it changes nothing
    const before = (await get(readings)).body;
    await santander.update(id, temp('9.5'), t1 + 86_400_000);
    assert.equal((await get(readings)).body, before);
    assert.deepEqual(await values('&lastN=1'), ['3.5']);
  });

  it('writes text outside ASCII as JSON escapes, the same strings to any parser', async () => {
    const id = 'urn:oc:entity:santander:environmental:fixed:kept-2';
    const t2 = T0 + 86_400_000 * 101;
    const text = 'Größe ✓ 😀 \u2028 "quoted" \\ ünï';
    await santander.create(id, { label: { type: 'urn:oc:attributeType:label', value: text } }, t2);
    for (const url of [`/datasource/${id}/readings`, `/datasource/${id}/label/readings?from=${iso(t2)}&to=${iso(t2)}`]) {
      const res = await get(url);
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(res.rawPayload.every((byte) => byte < 0x80), 'the body is ASCII');
      assert.equal(Number(res.headers['content-length']), res.rawPayload.length);
      const named = res.json().readings.filter((r: Reading) => r.attrName === 'label');
      assert.deepEqual(named.map((r: Reading) => r.attrValue), [text]);
    }
  });

  it('shows experiment assets only to the experimenter, participants and administrators', async () => {
    const p = platform();
    const experimenters = await Site.register(platform, 'experimenters');
    const ownerId = (await p.userToken('exp-owner')).userId;
    const id = `urn:oc:entity:experimenters:${ownerId}:exp-1:sensor1`;
    await experimenters.create(id, temp('20.1'), T0 + 86_400_000 * 40);
    // tokens issued at the clock's present, after the push
    const owner = await p.userToken('exp-owner');
    const participant = await p.userToken('exp-participant', [{ role: 'participant', experiment: 'exp-1' }]);
    const other = await p.userToken('exp-other', [{ role: 'participant', experiment: 'exp-2' }]);
    const admin = await p.userToken('exp-admin', ['administrator']);

    for (const path of [`/datasource/${id}/readings`, `/datasource/${id}/temperature:ambient/readings`, `/datasource/${id}/attributes`]) {
      for (const token of [undefined, other.token, await p.clientToken('ocsite-santander')]) {
        const res = await get(path, token ? bearer(token) : {});
        assert.equal(res.statusCode, 404, `${path} ${res.body}`);
        assert.equal(res.json().error, 'NotFound');
        // the same answer as for an asset that does not exist
        assert.ok(res.json().description.includes(id));
      }
      for (const token of [owner.token, participant.token, admin.token]) {
        assert.equal((await get(path, bearer(token))).statusCode, 200, path);
      }
      // what was answered to them is not answered to anyone else
      assert.equal((await get(path)).statusCode, 404, path);
    }
    assert.deepEqual(await json(`/datasource/${id}/temperature:ambient/readings?values=true`, bearer(participant.token)), ['20.1']);
  });

  it('documents the interface in the OpenAPI document', async () => {
    const doc = await json('/docs/json');
    const op = doc.paths['/datasource/{assetId}/{attr}/readings']?.get;
    assert.ok(op, Object.keys(doc.paths).join(' '));
    const names = op.parameters.map((x: { name: string }) => x.name);
    for (const n of ['assetId', 'attr', 'from', 'to', 'limit', 'offset', 'lastN', 'values', 'aggrMethod', 'aggrPeriod']) assert.ok(names.includes(n), n);
    assert.ok(op.responses['200'].content['text/csv']);
    assert.ok(doc.paths['/datasource/{assetId}/readings']?.get);
    assert.ok(doc.paths['/datasource/{assetId}/attributes']?.get);
  });
});
