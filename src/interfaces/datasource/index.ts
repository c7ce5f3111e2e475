import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import {
  AggregatesResponse, AssetParams, AssetReadingsQuery, AttributeParams, AttributeReadingsQuery, AttributesQuery,
  AttributesResponse, CSV_DESCRIPTION, ErrorResponse, ReadingsResponse, ValuesResponse,
} from '../../contracts/datasource.js';
import { bearerOptional } from '../../contracts/security.js';
import { aggregateBucket, methodsOf } from '../../domain/aggregation.js';
import { parseHistoryQuery, timeIndexOf } from '../../domain/history-query.js';
import { registerAnswerCache } from '../../http/answer-cache.js';
import { storeVersion } from '../../storage/repositories/discovery-freshness.js';
import { aggregateReadings, findReadings, listRecordedAttributes } from '../../storage/repositories/readings.js';
import { HistoryAnswers } from './history-answers.js';
import { registerExport } from './export.js';
import { registerMultiAssetReadings } from './multi-asset.js';
import { visibleAsset } from './visible-asset.js';
import {
  aggregatesBody, attributesBody, CSV_TYPE, JSON_TYPE, negotiateFormat, readingsBody, valuesBody, type BodyFormat,
} from './render.js';

const errors = {
  400: { ...ErrorResponse, description: 'A query parameter is not valid; the description names it' },
  404: { ...ErrorResponse, description: 'No such asset (or not visible to the caller), or no such attribute' },
};

const csvBody = { schema: { type: 'string', description: CSV_DESCRIPTION } };
const withCsv = (json: object) => ({ content: { 'application/json': { schema: json }, 'text/csv': csvBody } });
function send(reply: FastifyReply, format: BodyFormat, body: Buffer): FastifyReply {
  return reply.header('content-type', format === 'csv' ? CSV_TYPE : JSON_TYPE).send(body);
}

/** The datasource interface (spec part D): the recorded history of assets, GET only, bearer optional. */
export async function datasourceInterface(scope: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const answers = new HistoryAnswers();
  registerAnswerCache(app, () => storeVersion(ctx.store), {
    maxBytes: 32 * 1024 * 1024,
    maxAnswerBytes: 1024 * 1024,
    variant: (request) => negotiateFormat(request.headers.accept),
    // An export is streamed: there is no answer to keep.
    bypass: (request) => request.routeOptions.url === '/datasource/:assetId/export',
  });

  registerMultiAssetReadings(app, ctx);
  registerExport(app, ctx);

  app.get('/:assetId/readings', {
    schema: {
      tags: ['datasource'],
      summary: 'Readings of every attribute of an asset',
      description: 'Oldest first; from/to (both, inclusive), limit/offset or lastN. ' + CSV_DESCRIPTION,
      params: AssetParams,
      querystring: AssetReadingsQuery,
      security: bearerOptional,
      response: { 200: withCsv(ReadingsResponse), ...errors },
    },
  }, async (request, reply) => {
    const query = parseHistoryQuery(request.query, 'asset');
    const timeIndex = timeIndexOf(request.query);
    const asset = await visibleAsset(ctx, request, request.params.assetId, request.query.type);
    const readings = await findReadings(ctx.store, { assetSeq: asset.seq, attrName: undefined, range: query.range, timeIndex }, query.selection);
    const format = negotiateFormat(request.headers.accept);
    return send(reply, format, readingsBody(readings, format, timeIndex === 'observed'));
  });

  app.get('/:assetId/:attr/readings', {
    schema: {
      tags: ['datasource'],
      summary: 'Readings of one attribute of an asset, its values only, or aggregates',
      description: 'Oldest first. values=true gives a bare array of values; aggrMethod with aggrPeriod gives '
        + '{"aggregates":[{start,count,value}]} over the numeric values. ' + CSV_DESCRIPTION,
      params: AttributeParams,
      querystring: AttributeReadingsQuery,
      security: bearerOptional,
      response: {
        200: {
          description: 'Readings; with values=true a bare array of values; with aggrMethod the aggregates',
          content: {
            'application/json': { schema: { anyOf: [ReadingsResponse, ValuesResponse, AggregatesResponse] } },
            'text/csv': csvBody,
          },
        },
        ...errors,
      },
    },
  }, async (request, reply) => {
    const query = parseHistoryQuery(request.query, 'attribute');
    const timeIndex = timeIndexOf(request.query);
    const { assetId, attr } = request.params;
    const asset = await visibleAsset(ctx, request, assetId, request.query.type, attr);
    const filter = { assetSeq: asset.seq, attrName: attr, range: query.range, timeIndex };
    const format = negotiateFormat(request.headers.accept);
    const key = `${asset.seq} ${format} ${timeIndex} ${JSON.stringify(attr)} ${JSON.stringify(query)}`;
    const body = await answers.answer(ctx.store, filter, query, key, async () => {
      if (query.kind === 'aggregates') {
        const methods = methodsOf(query.aggregation);
        const stats = await aggregateReadings(ctx.store, filter, query.aggregation.periodMs, query.page);
        return aggregatesBody(stats.map((s) => aggregateBucket(s, methods)), methods, format);
      }
      const readings = await findReadings(ctx.store, filter, query.selection);
      return query.valuesOnly ? valuesBody(readings, format) : readingsBody(readings, format, timeIndex === 'observed');
    });
    return send(reply, format, body);
  });

  app.get('/:assetId/attributes', {
    schema: {
      tags: ['datasource'],
      summary: 'Names of the attributes recorded for an asset',
      params: AssetParams,
      querystring: AttributesQuery,
      security: bearerOptional,
      response: { 200: AttributesResponse, 404: errors[404] },
    },
  }, async (request, reply) => {
    const asset = await visibleAsset(ctx, request, request.params.assetId, request.query.type);
    const names = await listRecordedAttributes(ctx.store, asset.seq);
    const format = negotiateFormat(request.headers.accept);
    return send(reply, format, attributesBody(names, format));
  });
}
