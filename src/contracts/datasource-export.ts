/** The query of a history export (GET /datasource/{assetId}/export), written once. */
import { Type } from '@sinclair/typebox';
import { AssetReadingsQuery } from './datasource.js';
import { QueryObject } from './query.js';

const { from, to, type, timeIndex } = AssetReadingsQuery.properties;

export const ExportQuery = QueryObject({
  from, to, type, timeIndex,
  attr: Type.Optional(Type.String({ description: 'Only this attribute (e.g. temperature:ambient); every attribute when absent' })),
});
