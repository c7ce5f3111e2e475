import positionsFile from './data/asset-positions.json' with { type: 'json' };
import entitiesFile from './data/santander-entities.json' with { type: 'json' };
import sitesFile from './data/sites.json' with { type: 'json' };

/**
 * The real OrganiCity data the demo city and the benchmark data sets are built
 * from, copied from the reference data into src/demo/data/ (each file names
 * its source) so that the package needs nothing outside itself.
 */

export interface ReferenceSite {
  id: string;
  name: string;
  latitude: number;
  longitude: number;
  countryCode: string | null;
  country: string | null;
  city: string | null;
}

/** A real asset id and where it was, [longitude, latitude] as GeoJSON has it. */
export interface ReferencePosition {
  id: string;
  coordinates: [number, number];
}

/** An NGSI v2 entity in normalized form, as the central Orion returned it in 2016. */
export interface ReferenceEntity {
  id: string;
  type: string;
  [attribute: string]: unknown;
}

export const REFERENCE_SITES: readonly ReferenceSite[] = sitesFile.sites.map((s) => ({
  id: s.id, name: s.name, latitude: s.latitude, longitude: s.longitude, countryCode: s.countryCode, country: s.country, city: s.city,
}));

export const REFERENCE_POSITIONS: readonly ReferencePosition[] = (positionsFile.assets as Array<[string, number[]]>).map(([id, c]) => ({
  id, coordinates: [c[0] as number, c[1] as number],
}));

export const SANTANDER_ENTITIES: readonly ReferenceEntity[] = entitiesFile.entities as ReferenceEntity[];
