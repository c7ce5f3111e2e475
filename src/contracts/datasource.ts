/**
 * Request and response schemas of the datasource interface (spec part D), written
 * once: they type the routes, validate requests and make the OpenAPI document.
 * Query parameters are strings, as the spec gives them; src/domain/history-query.ts
 * reads them, so that a bad value gets a description naming it.
 */
import { Type, type Static } from '@sinclair/typebox';
import { QueryObject } from './query.js';
import { AGGREGATION_METHODS, AGGREGATION_PERIODS } from '../domain/aggregation.js';
import { DATE_EXAMPLES } from '../domain/history-dates.js';
import { DEFAULT_LIMIT, MAX_LIMIT, TIME_INDEXES } from '../domain/history-query.js';

export const AssetParams = Type.Object({
  assetId: Type.String({ description: 'Asset id (URN), e.g. urn:oc:entity:santander:environmental:fixed:3248' }),
});

export const AttributeParams = Type.Object({
  assetId: Type.String({ description: 'Asset id (URN)' }),
  attr: Type.String({ description: 'Attribute name, e.g. temperature:ambient' }),
});

const dateText = (bound: string) => Type.String({
  description: `${bound} of the date filter, inclusive; ISO 8601 with or without seconds (${DATE_EXAMPLES}); `
    + 'without a zone, UTC. The filter applies only when both from and to are given.',
});

const typeFilter = Type.String({
  description: 'Optional: the asset type (e.g. urn:oc:entityType:iotdevice). The platform resolves the type itself; when given and different, the asset is not found.',
});

const pageParams = {
  from: Type.Optional(dateText('Start')),
  to: Type.Optional(dateText('End')),
  limit: Type.Optional(Type.String({ description: `At most this many readings (whole number 1–${MAX_LIMIT}, default ${DEFAULT_LIMIT})`, examples: ['100'] })),
  offset: Type.Optional(Type.String({ description: 'Skip this many readings first (whole number >= 0, default 0)', examples: ['0'] })),
  lastN: Type.Optional(Type.String({
    description: `The newest N readings (whole number 1–${MAX_LIMIT}), still returned oldest first; within from/to when both are given. Not with limit or offset.`,
    examples: ['10'],
  })),
  type: Type.Optional(typeFilter),
  timeIndex: Type.Optional(Type.String({
    enum: [...TIME_INDEXES],
    description: 'received (default): readings are ordered, filtered by from/to and bucketed by recvTime; observed: by the TimeInstant '
      + 'they were sent with, and each reading also carries observedAt',
  })),
};

const oneAttributeOnly = Type.Optional(Type.String({ description: 'Only on /{assetId}/{attr}/readings: here, a 400 that says so' }));

/** values and aggregation are named here only to be refused clearly (they apply to one attribute). */
export const AssetReadingsQuery = QueryObject({ ...pageParams, values: oneAttributeOnly, aggrMethod: oneAttributeOnly, aggrPeriod: oneAttributeOnly });

export const AttributeReadingsQuery = QueryObject({
  ...pageParams,
  values: Type.Optional(Type.String({ description: 'When set (present, true or 1), the response is a bare JSON array of the values (strings as stored)', examples: ['true'] })),
  aggrMethod: Type.Optional(Type.String({
    description: `Aggregate the numeric values per period instead of listing readings (needs aggrPeriod): one of ${AGGREGATION_METHODS.join(', ')}, `
      + 'or several separated by commas (avg,min,max), when each bucket carries one field per method instead of value. '
      + 'Values that are not numbers are skipped. limit and offset then count buckets.',
    examples: ['avg', 'avg,min,max'],
  })),
  aggrPeriod: Type.Optional(Type.String({
    description: `Bucket length for aggrMethod: ${Object.keys(AGGREGATION_PERIODS).join(', ')}, or an ISO 8601 duration of weeks, days, hours, `
      + 'minutes or seconds (PT5M, PT15M, PT6H, P1D, P7D). Buckets are aligned on the Unix epoch in UTC (a day starts at 00:00Z).',
    examples: ['hour', 'PT15M', 'P1D'],
  })),
});

export const AttributesQuery = QueryObject({ type: Type.Optional(typeFilter) });

export const Reading = Type.Object({
  recvTime: Type.String({ description: 'When the platform received the reading: ISO 8601 UTC with milliseconds', examples: ['2017-01-09T19:26:35.000Z'] }),
  observedAt: Type.Optional(Type.String({ description: 'With timeIndex=observed: the TimeInstant the reading was sent with', examples: ['2017-01-09T19:26:30.000Z'] })),
  attrName: Type.String({ examples: ['temperature:ambient'] }),
  attrType: Type.String({ examples: ['urn:oc:attributeType:temperature:ambient'] }),
  attrValue: Type.String({ description: 'The value as a string; JSON text for values that were not strings', examples: ['10.7'] }),
});
export type Reading = Static<typeof Reading>;

export const ReadingsResponse = Type.Object({ readings: Type.Array(Reading) }, { description: 'Readings, oldest first' });

export const ValuesResponse = Type.Array(Type.String(), { description: 'With values=true: the values only, oldest first' });

export const Aggregate = Type.Object({
  start: Type.String({ description: 'Start of the bucket, ISO 8601 UTC', examples: ['2017-01-09T19:00:00.000Z'] }),
  count: Type.Integer({ description: 'How many numeric values the bucket holds' }),
  value: Type.Optional(Type.Number({ description: 'The aggregate of those values (for count, the count), when one method was asked' })),
  avg: Type.Optional(Type.Number({ description: 'With several methods: the average' })),
  min: Type.Optional(Type.Number({ description: 'With several methods: the least value' })),
  max: Type.Optional(Type.Number({ description: 'With several methods: the greatest value' })),
  sum: Type.Optional(Type.Number({ description: 'With several methods: the sum' })),
});

export const AggregatesResponse = Type.Object({ aggregates: Type.Array(Aggregate) }, {
  description: 'With aggrMethod and aggrPeriod: buckets that hold at least one number, oldest first',
});

export const AttributesResponse = Type.Object({
  attributes: Type.Array(Type.String(), { description: 'Names of the attributes recorded for the asset, sorted' }),
});

export const ErrorResponse = Type.Object({
  error: Type.String({ examples: ['NotFound'] }),
  description: Type.String(),
});

/** CSV (Accept: text/csv) as it appears in the OpenAPI document. */
export const CSV_DESCRIPTION = 'With Accept: text/csv, the same rows as CSV (RFC 4180) with a header row: '
  + 'recvTime,attrName,attrType,attrValue for readings; attrValue with values=true; start,count,value for aggregates.';
