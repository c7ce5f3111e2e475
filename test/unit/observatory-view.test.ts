// The page's own rules, run under Node; type-checked with the page's sources (web/tsconfig.test.json).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chartCsv } from '../../web/src/chart-csv.js';
import { colourClassOf, numericValue, scaleOf, stepOf } from '../../web/src/colour-scale.js';
import { chartPlan, type Compared } from '../../web/src/comparison.js';
import { resolutionFor, withGaps } from '../../web/src/series.js';
import { EMPTY_VIEW, formatView, MAX_COMPARED, parseView } from '../../web/src/view-state.js';

const URN = 'urn:oc:entity:santander:environmental:fixed:459';
const DAY = 86_400_000;

describe('the observatory view in the address', () => {
  it('writes and reads back every part of a view', () => {
    const view = {
      centre: { lat: 43.4623, lon: -3.81, zoom: 15.5 },
      filters: { site: 'santander', service: 'environmental', provider: '', type: 'urn:oc:entityType:iotdevice', status: 'online' as const },
      colour: 'temperature:ambient',
      asset: URN,
      attr: 'temperature:ambient',
      range: { from: Date.UTC(2026, 0, 1), to: Date.UTC(2026, 0, 8) },
      compare: [{ id: 'urn:oc:entity:santander:parking:np3700', attr: 'presenceState:parking' }],
    };
    const hash = formatView(view);
    assert.equal(hash, '#map=15.5/43.4623/-3.81&site=santander&service=environmental&type=urn:oc:entityType:iotdevice&status=online'
      + `&colour=temperature:ambient&asset=${URN}&attr=temperature:ambient&from=2026-01-01T00:00:00.000Z&to=2026-01-08T00:00:00.000Z`
      + '&cmp=urn:oc:entity:santander:parking:np3700~presenceState:parking');
    assert.deepEqual(parseView(hash), view);
    assert.equal(formatView(parseView(hash)), hash);
  });

  it('keeps a preset as a preset, and reads the older #asset= form', () => {
    assert.deepEqual(parseView(formatView({ ...EMPTY_VIEW, asset: URN, range: { preset: '7d' } })).range, { preset: '7d' });
    assert.equal(parseView(`#asset=${encodeURIComponent(URN)}`).asset, URN);
  });

  it('ignores what it cannot read rather than failing', () => {
    const view = parseView('#map=99/1000/x&status=sideways&range=2w&from=yesterday&to=now&cmp=nothing,~x,a~&colour=');
    assert.deepEqual(view, { ...EMPTY_VIEW, filters: { ...EMPTY_VIEW.filters } });
    assert.equal(parseView('#from=2026-01-08T00:00:00Z&to=2026-01-01T00:00:00Z').range, null);
    assert.equal(parseView(`#cmp=${Array.from({ length: 9 }, (_, i) => `u${i}~a`).join(',')}`).compare.length, 6);
  });
});

describe('the observatory chart', () => {
  it('uses raw readings up to two days and the shortest period fitting one request beyond', () => {
    assert.equal(resolutionFor(0, 2 * DAY, false, ['minute', 'hour', 'day'], 1000), 'raw');
    assert.equal(resolutionFor(0, 30 * DAY, false, ['minute', 'hour', 'day'], 1000), 'hour');
    assert.equal(resolutionFor(0, 365 * DAY, false, ['minute', 'hour', 'day'], 1000), 'day');
    assert.equal(resolutionFor(0, 365 * DAY, true, ['minute', 'hour', 'day'], 1000), 'raw');
  });

  it('breaks the line only where a silence is well beyond the usual spacing', () => {
    const every2h = [0, 7200, 14400, 21600, 28800];
    assert.deepEqual(withGaps(every2h, [1, 2, 3, 4, 5], 3600).y, [1, 2, 3, 4, 5]);
    const silent = withGaps([0, 3600, 7200, 10800, 86400], [1, 2, 3, 4, 5], 3600);
    assert.deepEqual(silent.y, [1, 2, 3, 4, null, 5]);
  });

  it('writes what the chart shows as CSV, one row per instant and one column per series', () => {
    const csv = chartCsv([
      { label: 'Fixed 459 · temperature', unit: '°C', boolean: false, colour: '#000', x: [0, 3600], y: [12.5, null] },
      { label: 'np3700, "north"', unit: '', boolean: true, colour: '#111', x: [3600], y: [1] },
    ]);
    assert.equal(csv, 'time,Fixed 459 · temperature (°C),"np3700, ""north"""\r\n1970-01-01T00:00:00.000Z,12.5,\r\n1970-01-01T01:00:00.000Z,,true\r\n');
  });
});

describe('colour by value', () => {
  it('spreads the values in view over eight steps, true and false at the ends, grey without a value', () => {
    const scale = scaleOf([8, 12, 10], false)!;
    assert.deepEqual(scale, { min: 8, max: 12, boolean: false });
    assert.equal(stepOf(8, scale), 0);
    assert.equal(stepOf(12, scale), 7);
    assert.equal(colourClassOf(10, scale), 'v4');
    assert.equal(colourClassOf(undefined, scale), 'vnone');
    const flags = scaleOf([0, 1], true)!;
    assert.equal(colourClassOf(1, flags), 'v7');
    assert.equal(colourClassOf(0, flags), 'v0');
    assert.equal(scaleOf([], false), null);
    assert.deepEqual([numericValue('13.74'), numericValue(true), numericValue('false'), numericValue('hot'), numericValue(null)], [13.74, 1, 0, null, null]);
  });
});

describe('the comparison at its limit', () => {
  const series = (n: number): Compared => ({ id: `urn:oc:entity:santander:environmental:fixed:${n}`, attr: 'temperature:ambient', label: `Fixed ${n}`, unit: '°C', boolean: false });
  const six = [1, 2, 3, 4, 5, 6].map(series);

  /** The chart and the list agree: every coloured entry is the line of that colour, every line but the open asset's is listed, nothing is drawn twice. */
  const agree = (plan: ReturnType<typeof chartPlan>, shown: Compared) => {
    assert.ok(plan.drawn.length <= MAX_COMPARED);
    assert.equal(new Set(plan.drawn.map((p) => p.id)).size, plan.drawn.length);
    for (const { pair, colour } of plan.listed) if (colour !== null) assert.equal(plan.drawn[colour], pair);
    for (const [i, p] of plan.drawn.entries()) {
      if (p !== shown) assert.equal(plan.listed.find((l) => l.pair === p)?.colour, i, `${p.label} drawn but not listed with its colour`);
    }
  };

  it('draws the six compared series, in their colours, when the open asset is one of them', () => {
    const plan = chartPlan(six[2]!, six);
    agree(plan, six[2]!);
    assert.equal(plan.drawn.length, 6);
    assert.equal(plan.drawn[0], six[2]);
    assert.deepEqual(plan.listed.map((l) => l.colour).sort(), [0, 1, 2, 3, 4, 5]);
  });

  it('draws a seventh asset opened beside six compared series, and lists the one left out as not drawn', () => {
    const seventh = series(7);
    const plan = chartPlan(seventh, six);
    agree(plan, seventh);
    assert.equal(plan.drawn.length, MAX_COMPARED);
    assert.equal(plan.drawn[0], seventh);
    assert.deepEqual(plan.listed.map((l) => l.colour), [1, 2, 3, 4, 5, null]);
    assert.equal(plan.listed.length, 6, 'the compared series all stay in the list');
  });

  it('draws every series while there is room', () => {
    const seventh = series(7);
    const plan = chartPlan(seventh, six.slice(0, 4));
    agree(plan, seventh);
    assert.equal(plan.drawn.length, 5);
    assert.ok(plan.listed.every((l) => l.colour !== null));
  });
});
