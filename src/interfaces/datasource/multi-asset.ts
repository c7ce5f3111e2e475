import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { MultiAssetQuery as MultiAssetQuerySchema, SeriesResponse } from '../../contracts/datasource-series.js';
import { ErrorResponse } from '../../contracts/datasource.js';
import { bearerOptional } from '../../contracts/security.js';
import { aggregateBucket, methodsOf } from '../../domain/aggregation.js';
import { notFound } from '../../domain/errors.js';
import { parseHistoryQuery, timeIndexOf, type HistoryQuery, type TimeIndex } from '../../domain/history-query.js';
import { MAX_SERIES, parseMultiAssetQuery, tooManySeries, type MultiAssetQuery } from '../../domain/multi-asset-query.js';
import { canSee } from '../../domain/visibility.js';
import type { Caller } from '../../domain/caller.js';
import { mapInParallel } from '../../services/in-parallel.js';
import type { Store } from '../../storage/store.js';
import {
  aggregateReadings, findHistoryAssets, findReadings, selectHistoryAssets, type HistoryAsset,
} from '../../storage/repositories/readings.js';
import {
  aggregatesBody, aggregatesTable, CSV_TYPE, JSON_TYPE, negotiateFormat, readingsBody, readingsTable, valuesBody, valuesTable,
  type BodyFormat, type CsvTable,
} from './render.js';
import { seriesCsv, seriesJson } from './render-series.js';

/** Series read at once: the store works on some while the server renders others, and a request takes a few of its connections at most. */
const SERIES_AT_ONCE = 4;

/** Rows a selection by type and site is read up to, before the ones the caller may not see are left out. */
const SELECTION_READ = 10 * MAX_SERIES;

/**
 * The assets of the request the caller may see, by id. A listed asset that is
 * unknown or not visible is a 404, as when it is asked for alone; a selection
 * holds only the visible ones.
 */
async function chosenAssets(store: Store, caller: Caller | undefined, query: MultiAssetQuery): Promise<HistoryAsset[]> {
  const { assets } = query;
  if (assets.kind === 'ids') {
    const found = new Map((await findHistoryAssets(store, assets.ids)).map((a) => [a.id, a]));
    for (const id of assets.ids) {
      const asset = found.get(id);
      if (!asset || !canSee(caller, asset)) throw notFound(`The asset '${id}' has not been found`);
    }
    return [...found.values()];
  }
  const rows = await selectHistoryAssets(store, { type: assets.type, site: assets.site, attrName: query.attr }, SELECTION_READ + 1);
  const visible = rows.filter((a) => canSee(caller, a));
  if (visible.length > MAX_SERIES || rows.length > SELECTION_READ) throw tooManySeries();
  return visible;
}

/** One asset's series: its JSON body, or its CSV table. */
async function series(store: Store, asset: HistoryAsset, attr: string, query: HistoryQuery, timeIndex: TimeIndex, format: BodyFormat): Promise<Buffer | CsvTable> {
  const filter = { assetSeq: asset.seq, attrName: attr, range: query.range, timeIndex };
  if (query.kind === 'aggregates') {
    const methods = methodsOf(query.aggregation);
    const buckets = (await aggregateReadings(store, filter, query.aggregation.periodMs, query.page)).map((s) => aggregateBucket(s, methods));
    return format === 'csv' ? aggregatesTable(buckets, methods) : aggregatesBody(buckets, methods, 'json');
  }
  const readings = await findReadings(store, filter, query.selection);
  if (query.valuesOnly) return format === 'csv' ? valuesTable(readings) : valuesBody(readings, 'json');
  return format === 'csv' ? readingsTable(readings, timeIndex === 'observed') : readingsBody(readings, 'json', timeIndex === 'observed');
}

function emptyTable(query: HistoryQuery, timeIndex: TimeIndex): CsvTable {
  if (query.kind === 'aggregates') return aggregatesTable([], methodsOf(query.aggregation));
  return query.valuesOnly ? valuesTable([]) : readingsTable([], timeIndex === 'observed');
}

/** GET /datasource/readings: one attribute of many assets in one answer, a series per asset. */
export function registerMultiAssetReadings(scope: FastifyInstance, ctx: AppContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/readings', {
    schema: {
      tags: ['datasource'],
      summary: 'One attribute of many assets: a series per asset',
      description: `The assets are listed in assets (at most ${MAX_SERIES}), or chosen by type and/or site (those that recorded attr, `
        + `at most ${MAX_SERIES}). Each series is what /{assetId}/{attr}/readings answers with the same parameters. `
        + 'With Accept: text/csv, every series under one header, each row led by its assetId.',
      querystring: MultiAssetQuerySchema,
      security: bearerOptional,
      response: {
        200: { content: { 'application/json': { schema: SeriesResponse }, 'text/csv': { schema: { type: 'string' } } } },
        400: { ...ErrorResponse, description: 'A query parameter is not valid; the description names it' },
        404: { ...ErrorResponse, description: 'A listed asset does not exist, or is not visible to the caller' },
      },
    },
  }, async (request, reply) => {
    const multi = parseMultiAssetQuery(request.query);
    const query = parseHistoryQuery(request.query, 'attribute');
    const timeIndex = timeIndexOf(request.query);
    const assets = await chosenAssets(ctx.store, request.caller, multi);
    const format = negotiateFormat(request.headers.accept);
    const parts = await mapInParallel(assets, SERIES_AT_ONCE, (asset) => series(ctx.store, asset, multi.attr, query, timeIndex, format));
    if (format === 'csv') {
      const body = seriesCsv(assets.map((a, i) => ({ assetId: a.id, table: parts[i] as CsvTable })), emptyTable(query, timeIndex).header);
      return reply.header('content-type', CSV_TYPE).send(body);
    }
    return reply.header('content-type', JSON_TYPE).send(seriesJson(assets.map((a, i) => ({ assetId: a.id, json: parts[i] as Buffer }))));
  });
}
