import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config.js';
import { ObservatorySettings } from '../contracts/observatory.js';
import { AGGREGATION_PERIODS } from '../domain/aggregation.js';
import { MAX_LIMIT } from '../domain/history-query.js';

/** `GET /observatory/settings`: the page reads the platform's rules from here rather than assuming them. */
export function registerObservatorySettings(scope: FastifyInstance, config: Config): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const settings: ObservatorySettings = {
    onlineWindowMs: config.onlineWindowMs,
    tiles: config.mapTiles ? { url: config.mapTiles, attribution: config.mapTilesAttribution } : null,
    maxReadingsPerPage: MAX_LIMIT,
    aggregationPeriods: Object.keys(AGGREGATION_PERIODS),
  };
  app.get('/observatory/settings', {
    schema: {
      tags: ['observatory'], summary: 'Settings of the observatory page',
      description: 'The online window, the street map tiles and the datasource limits the page at / follows.',
      response: { 200: ObservatorySettings },
    },
  }, async (_request, reply) => {
    reply.header('cache-control', 'no-cache');
    return settings;
  });
}
