/**
 * Schemas of the datasource's multi-asset call (GET /datasource/readings),
 * written once beside those of one asset (./datasource.ts), whose parameters it shares.
 */
import { Type } from '@sinclair/typebox';
import { AggregatesResponse, AttributeReadingsQuery, ReadingsResponse, ValuesResponse } from './datasource.js';
import { QueryObject } from './query.js';
import { MAX_SERIES } from '../domain/multi-asset-query.js';

export const MultiAssetQuery = QueryObject({
  ...AttributeReadingsQuery.properties,
  attr: Type.String({ description: 'The attribute whose series are compared, e.g. temperature:ambient' }),
  assets: Type.Optional(Type.String({
    description: `Asset ids (URNs) separated by commas, at most ${MAX_SERIES}; each unknown or invisible one is a 404. Not with type or site.`,
  })),
  type: Type.Optional(Type.String({ description: 'Without assets: the assets of this type (that recorded attr)' })),
  site: Type.Optional(Type.String({ description: 'Without assets: the assets of this site (that recorded attr)' })),
});

export const SeriesResponse = Type.Object({
  series: Type.Array(Type.Intersect([
    Type.Object({ assetId: Type.String() }),
    Type.Partial(Type.Object({
      readings: ReadingsResponse.properties.readings,
      values: ValuesResponse,
      aggregates: AggregatesResponse.properties.aggregates,
    })),
  ]), { description: 'One series per asset, by asset id' }),
});
