/**
 * Shapes of the discovery and datasource responses the page reads: the
 * platform's own contracts (src/contracts, spec parts C and D), imported as
 * types only, so that the bundle takes nothing from the server.
 */
import type { Static } from '@sinclair/typebox';
import type * as datasource from '../../src/contracts/datasource';
import type * as discovery from '../../src/contracts/discovery';

export type Position = Static<typeof discovery.Position>;
export type Counters = Static<typeof discovery.Counters>;
export type Site = Static<typeof discovery.Site>;

/** Services and providers share one shape. */
export type Category = Static<typeof discovery.Category>;
export type CityCount = Category['related']['cities'][number];

export type AssetType = Static<typeof discovery.AssetType>;
export type AssetContext = Static<typeof discovery.Context>;
export type Asset = Static<typeof discovery.Asset>;
export type AssetData = Static<typeof discovery.AssetData>;
export type Attribute = AssetData['attributes'][number];
export type Metadatum = Attribute['metadata'][number];

export type AssetFeature = Static<typeof discovery.Feature>;
export type FeatureProperties = AssetFeature['properties'];
export type AssetCollection = Static<typeof discovery.FeatureCollections>[number];

export type Reading = Static<typeof datasource.Reading>;
export type Aggregate = Static<typeof datasource.Aggregate>;
