import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { ExportQuery } from '../../contracts/datasource-export.js';
import { AssetParams, ErrorResponse } from '../../contracts/datasource.js';
import { bearerOptional } from '../../contracts/security.js';
import { exportFileName, parseExportQuery } from '../../domain/history-export.js';
import { exportPages } from '../../storage/repositories/reading-export.js';
import { exportHeader, exportWriter, NDJSON_TYPE } from './render-export.js';
import { CSV_TYPE, negotiateFormat } from './render.js';
import { visibleAsset } from './visible-asset.js';

/**
 * GET /datasource/{assetId}/export: the whole history of an asset (or of one
 * attribute), streamed as a download with no row limit. It is read a page at a
 * time as the client takes it (the stream's backpressure), so memory stays the
 * size of a few pages however long the history is.
 */
export function registerExport(scope: FastifyInstance, ctx: AppContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/:assetId/export', {
    schema: {
      tags: ['datasource'],
      summary: 'Export the history of an asset as a download (CSV or NDJSON)',
      description: 'Every reading in the range (from/to, both inclusive, optional), oldest first, with no row limit; attr limits it to one attribute. '
        + 'With Accept: text/csv, CSV (RFC 4180) with the header recvTime,observedAt,attrName,attrType,attrValue; '
        + 'otherwise NDJSON (application/x-ndjson), one reading per line with the same fields.',
      params: AssetParams,
      querystring: ExportQuery,
      security: bearerOptional,
      response: {
        200: { description: 'The readings, streamed', content: { 'text/csv': { schema: { type: 'string' } }, [NDJSON_TYPE]: { schema: { type: 'string' } } } },
        400: { ...ErrorResponse, description: 'A query parameter is not valid; the description names it' },
        404: { ...ErrorResponse, description: 'No such asset (or not visible to the caller), or no such attribute' },
      },
    },
  }, async (request, reply) => {
    const query = parseExportQuery(request.query);
    const { assetId } = request.params;
    const asset = await visibleAsset(ctx, request, assetId, query.type, query.attrName);
    const format = negotiateFormat(request.headers.accept);
    // Each page is written as bytes once read: what waits for the client is bytes, not readings.
    const pages = exportPages(ctx.store, { assetSeq: asset.seq, attrName: query.attrName, range: query.range, timeIndex: query.timeIndex }, exportWriter(format));
    async function* body(): AsyncGenerator<Buffer> {
      const header = exportHeader(format);
      if (header) yield header;
      for await (const chunks of pages) yield* chunks;
    }
    return reply
      .header('content-type', format === 'csv' ? CSV_TYPE : NDJSON_TYPE)
      .header('content-disposition', `attachment; filename="${exportFileName(assetId, query.attrName, format === 'csv' ? 'csv' : 'ndjson')}"`)
      .send(Readable.from(body(), { objectMode: false }));
  });
}
