import { Type, type Static } from '@sinclair/typebox';

/** What the observatory page needs to agree with the platform it is served by. */
export const ObservatorySettings = Type.Object({
  onlineWindowMs: Type.Integer({ description: 'An asset is online when its last reading is younger than this (ONLINE_WINDOW), ms' }),
  tiles: Type.Union([
    Type.Object({
      url: Type.String({ description: 'Raster tile URL template ({z}/{x}/{y}, optional {s}) (MAP_TILES)' }),
      attribution: Type.String({ description: 'The credit shown with the tiles (MAP_TILES_ATTRIBUTION)' }),
    }),
    Type.Null(),
  ], { description: 'The street map under the markers; null: country outlines only (MAP_TILES=none)' }),
  maxReadingsPerPage: Type.Integer({ description: 'The most readings or buckets one datasource request returns' }),
  aggregationPeriods: Type.Array(Type.String(), { description: 'The aggrPeriod values the datasource takes' }),
}, { description: 'Settings of the observatory page' });
export type ObservatorySettings = Static<typeof ObservatorySettings>;
