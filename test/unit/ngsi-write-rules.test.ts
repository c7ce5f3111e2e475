import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NgsiAttributes } from '../../src/domain/asset-body.js';
import type { AssetChange } from '../../src/domain/asset-writes.js';
import { attributeReplacement, valueReplacement } from '../../src/domain/attribute-replacement.js';
import { applyAttributeWrite } from '../../src/domain/attribute-writes.js';
import { MAX_BATCH_ENTITIES, readBatchUpdate, readNotification } from '../../src/domain/batch-update.js';
import { describeFailures, failureAnswer } from '../../src/domain/entity-failures.js';
import { deleteOperation, updateOperation, type OperationFrame } from '../../src/domain/entity-operations.js';
import { AppError } from '../../src/domain/errors.js';
import { normalizeKeyValues } from '../../src/domain/ngsi-key-values.js';
import { readTextValue } from '../../src/domain/ngsi-text-value.js';
import { planUpdates, type CurrentAsset } from '../../src/domain/update-plan.js';
import type { BatchCommitter, BatchItem } from '../../src/storage/write-batch.js';
import { WritePipeline } from '../../src/storage/write-pipeline.js';

/** The rules of the NGSI v2 writes: attribute modes, batch shapes, Orion's failure answers, keyValues. */

const TI = { type: 'urn:oc:attributeType:ISO8601', value: '2017-07-25T13:35:00.000Z', metadata: {} };
const attr = (value: unknown, type = 'Number') => ({ type, value, metadata: {} });
const stored: NgsiAttributes = { TimeInstant: TI, a: attr(1), b: attr(2) } as NgsiAttributes;
const ID = 'urn:oc:entity:santander:environment:rules:x';

describe('attribute writes', () => {
  it('append replaces or adds; update needs every attribute; appendStrict refuses existing ones; TimeInstant counts for neither', () => {
    assert.deepEqual(Object.keys(applyAttributeWrite(stored, { changes: { TimeInstant: TI, c: attr(3) } as NgsiAttributes })), ['TimeInstant', 'a', 'b', 'c']);
    assert.deepEqual(applyAttributeWrite(stored, { changes: { TimeInstant: TI, a: attr(5), c: attr(3), d: attr(4) } as NgsiAttributes, mode: 'update' }), { refused: 'missing', attributes: ['c', 'd'] });
    assert.deepEqual(applyAttributeWrite(stored, { changes: { TimeInstant: TI, a: attr(5), c: attr(3) } as NgsiAttributes, mode: 'appendStrict' }), { refused: 'existing', attributes: ['a'] });
    assert.deepEqual(Object.keys(applyAttributeWrite(stored, { changes: { TimeInstant: TI, c: attr(3) } as NgsiAttributes, mode: 'appendStrict' })), ['TimeInstant', 'a', 'b', 'c']);
    assert.deepEqual(Object.keys(applyAttributeWrite(stored, { changes: { TimeInstant: TI, z: attr(9) } as NgsiAttributes, mode: 'replace' })), ['TimeInstant', 'z']);
  });

  it('removes attributes that exist, and refuses those that do not', () => {
    assert.deepEqual(Object.keys(applyAttributeWrite(stored, { changes: {} as NgsiAttributes, removes: ['a'] })), ['TimeInstant', 'b']);
    assert.deepEqual(applyAttributeWrite(stored, { changes: {} as NgsiAttributes, removes: ['a', 'q'] }), { refused: 'missing', attributes: ['q'] });
  });

  it('plans refused writes as outcomes that write nothing, and removals that keep the observation time', () => {
    const current: CurrentAsset = { id: ID, seq: 3, type: 't', site: 'santander', service: 'environment', provider: 'rules', attrs: JSON.stringify(stored), latitude: 1, longitude: 2, last_reading_at: 100, recorded_at: Date.parse(TI.value) };
    const change = (extra: Partial<AssetChange>): AssetChange => ({ id: ID, expectedType: undefined, changes: {} as NgsiAttributes, position: undefined, recordedAt: 5, receivedAt: 200, ...extra });
    const plan = planUpdates([
      change({ changes: { TimeInstant: TI, q: attr(1) } as NgsiAttributes, mode: 'update' }),
      change({ removes: ['a'] }),
      change({ id: 'other' }),
    ], [current]);
    assert.deepEqual(plan.outcomes, [{ refused: 'missing', attributes: ['q'] }, 'updated', 'not-found']);
    assert.equal(plan.readings.length, 0);
    assert.deepEqual(Object.keys(plan.written[0]!.attrs), ['TimeInstant', 'b']);
    assert.equal(plan.written[0]!.recordedAt, Date.parse(TI.value));
    assert.equal(plan.written[0]!.lastReadingAt, 100);
    assert.equal(plan.changes.length, 1);
  });
});

describe('batch bodies', () => {
  it('reads the action type (old upper-case names too) and the entities, attributes apart from id and type', () => {
    const read = readBatchUpdate({ actionType: 'APPEND_STRICT', entities: [{ a: 1, id: ID, type: 'T' }] });
    assert.equal(read.action, 'appendStrict');
    assert.deepEqual({ ...read.entities[0]!.attributes }, { a: 1 });
    assert.equal(read.entities[0]!.type, 'T');
    assert.deepEqual(readNotification({ subscriptionId: 's', data: [{ id: ID }] }).map((e) => e.id), [ID]);
  });

  it('refuses more than the entity limit with 413 and a description', () => {
    const error = (() => {
      try {
        readBatchUpdate({ actionType: 'append', entities: Array.from({ length: MAX_BATCH_ENTITIES + 1 }, () => ({ id: ID })) });
      } catch (e) {
        return e as AppError;
      }
      return undefined;
    })();
    assert.equal(error?.code, 'PAYLOAD_TOO_LARGE');
    assert.match(error?.message ?? '', /at most 1000/);
    assert.throws(() => readBatchUpdate({ actionType: 'append', entities: [{ id: '' }] }), /entities\[0\]\.id must be a non-empty string/);
  });
});

describe("Orion's answers to failed entities", () => {
  const e = (id: string, type?: string) => ({ id, type });
  it('describes each group as Orion does, the type only where the request gave it', () => {
    assert.equal(describeFailures([
      { entity: e('E', 'T'), kind: 'missing', attributes: ['A', 'B'] },
      { entity: e('G'), kind: 'not-found' },
      { entity: e('H'), kind: 'existing', attributes: ['C'] },
      { entity: e('I'), kind: 'invalid', reason: 'bad' },
    ]), 'do not exist: E/T - [ A, B ], G [entity itself]; one or more of the attributes in the request already exist: H - [ C ]; not valid: I (bad)');
  });

  it('answers 404 when none existed, Unprocessable when none was written, PartialUpdate when some were', () => {
    assert.equal(failureAnswer(3, []), undefined);
    assert.equal(failureAnswer(0, [{ entity: e('G'), kind: 'not-found' }])?.code, 'ASSET_NOT_FOUND');
    assert.equal(failureAnswer(0, [{ entity: e('G'), kind: 'not-found' }, { entity: e('H'), kind: 'existing', attributes: ['C'] }])?.code, 'UNPROCESSABLE');
    const partial = failureAnswer(1, [{ entity: e('G'), kind: 'not-found' }]);
    assert.deepEqual([partial?.code, partial?.kind], ['PARTIAL_UPDATE', 'PartialUpdate']);
  });
});

describe('entity operations', () => {
  const frame: OperationFrame = { site: { id: 'santander', latitude: 43, longitude: -3 }, receivedAt: Date.parse('2030-01-01T00:00:00.000Z'), defaultQuota: 10, keyValues: false, maxAttributes: 256, clockSkewMs: 300_000 };
  it('refuses another site before reading the body; a replace without a position goes to the site centre', () => {
    assert.throws(() => updateOperation({ id: 'urn:oc:entity:london:x:y:z', type: undefined }, {}, 'update', frame), /prefix wrong/);
    const write = updateOperation({ id: ID, type: undefined }, { TimeInstant: TI }, 'replace', frame);
    assert.deepEqual(write.input.position, { latitude: 43, longitude: -3 });
  });

  it('deletes the entity when no attribute is named, and refuses removing TimeInstant', () => {
    assert.equal(deleteOperation({ id: ID, type: undefined, body: {}, attributes: {} }, frame).kind, 'delete');
    assert.throws(() => deleteOperation({ id: ID, type: undefined, body: {}, attributes: { TimeInstant: {} } }, frame), /TimeInstant cannot be removed/);
    const write = deleteOperation({ id: ID, type: undefined, body: {}, attributes: { location: {} } }, frame, { TimeInstant: TI, location: attr('1, 2', 'geo:point') } as NgsiAttributes);
    assert.deepEqual(write.kind === 'update' ? [write.input.removes, write.input.position] : undefined, [['location'], { latitude: 43, longitude: -3 }]);
  });
});

describe('values without types', () => {
  it('keyValues: Orion types for bare values, the platform type for TimeInstant', () => {
    assert.deepEqual({ ...(normalizeKeyValues({ id: 'x', TimeInstant: 't', n: 1, s: 's', b: true, z: null, o: {} }) as object) }, {
      id: 'x', TimeInstant: { type: 'urn:oc:attributeType:ISO8601', value: 't' }, n: attr(1), s: attr('s', 'Text'), b: attr(true, 'Boolean'), z: attr(null, 'None'), o: attr({}, 'StructuredValue'),
    });
    const list = [1];
    assert.equal(normalizeKeyValues(list), list);
  });

  it('text/plain values: numbers, literals and quoted strings only', () => {
    assert.deepEqual(['1.5e2', 'true', 'false', 'null', '"a b"'].map(readTextValue), [150, true, false, null, 'a b']);
    for (const bad of ['a b', '{"a":1}', '01', '"open']) assert.throws(() => readTextValue(bad), /text\/plain value must be/);
  });

  it('one attribute written alone is observed at its TimeInstant metadata, else at receipt; its type kept when left out', () => {
    const at = Date.parse('2026-01-01T00:00:00.000Z');
    assert.deepEqual(attributeReplacement('a', { value: 3 }, attr(1), at), { a: { value: 3, type: 'Number', metadata: {} }, TimeInstant: { type: TI.type, value: '2026-01-01T00:00:00.000Z' } });
    const stamped = attributeReplacement('a', { value: 3, metadata: { TimeInstant: { type: 'DateTime', value: TI.value } } }, attr(1), at);
    assert.deepEqual(stamped.TimeInstant, { type: TI.type, value: TI.value });
    assert.deepEqual(valueReplacement('a', 'x', { type: 'T', value: 1, metadata: { m: 1 } }, at).a, { type: 'T', value: 'x', metadata: { m: 1 } });
    assert.deepEqual(valueReplacement('TimeInstant', TI.value, undefined, at), { TimeInstant: { type: TI.type, value: TI.value } });
  });
});

describe('write pipeline: writes submitted together', () => {
  it('goes to the store in one batch, whatever the batch size, each with its own outcome', async () => {
    const batches: number[] = [];
    const committer: BatchCommitter = {
      batchesInFlight: 1,
      commit: async (items: readonly BatchItem[]) => {
        batches.push(items.length);
        return { outcomes: items.map((_, i) => (i === 1 ? { ok: false as const, error: new Error('refused') } : { ok: true as const, value: i })), lastChange: undefined };
      },
    };
    const pipeline = new WritePipeline(committer, () => {}, 4);
    const write = (n: number) => ({ kind: 'delete' as const, input: { id: String(n), expectedType: undefined, now: 0 } });
    const alone = pipeline.write(write(0));
    const together = pipeline.writeAll(Array.from({ length: 10 }, (_, n) => write(n)));
    const after = pipeline.write(write(99));
    const [settled] = await Promise.all([together, alone, after]);
    assert.deepEqual(batches, [11, 1]);
    assert.deepEqual(settled.map((s) => s.status), ['rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
  });
});
