/**
 * The defaults and bounds of a geo search, apart from the code that reads one
 * (geo-query.ts, which needs Node to tell addresses apart): the contracts name
 * them in the OpenAPI document, and the observatory type-checks against the contracts.
 */
export const DEFAULT_RADIUS_KM = 1;
export const MAX_POLYGON_VERTICES = 500;
