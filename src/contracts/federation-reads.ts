import { Type } from '@sinclair/typebox';
import { Asset, AssetParams, Attribute } from './federation.js';
import { bearerRequired } from './security.js';

/**
 * Schemas of the federation's NGSI v2 reads (GET /v2/entities and its
 * sub-resources, /v2/types, POST /v2/op/query). Like the rest of the mount
 * they document the interface; the checks run in src/domain/ngsi-entity-query.ts
 * with Orion's rules and descriptions that name the field.
 */

const errorRef = Type.Ref('FederationError');

const errors = {
  400: { ...errorRef, description: 'A parameter cannot be read (the description names it), or another site\'s id' },
  401: { ...errorRef, description: 'No valid bearer token' },
  403: { ...errorRef, description: 'The token lacks the role ocsite' },
};

const text = (description: string) => Type.Optional(Type.String({ description }));

const ReadHeaders = Type.Object({
  'platform-service': text('When given (or its synonym Fiware-Service): the platform service name'),
  'fiware-service': text('Synonym of platform-service'),
});

export const ListEntitiesQuery = Type.Object({
  id: text('Comma-separated entity ids; incompatible with idPattern'),
  idPattern: text('Regular expression the id matches; incompatible with id'),
  type: text('Comma-separated entity types; incompatible with typePattern'),
  typePattern: text('Regular expression the type matches; incompatible with type'),
  q: text('Simple Query Language, statements joined by ";" (e.g. temperature>20;status==open)'),
  georel: text('near;maxDistance:M | near;minDistance:M | coveredBy | intersects | disjoint | equals'),
  geometry: text('point | line | polygon | box'),
  coords: text('"lat,lon;lat,lon;…"'),
  attrs: text('Comma-separated attribute names to include, in this order'),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 20 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  orderBy: text('Comma-separated keys: id, type, dateCreated, dateModified or attribute names, "!" for descending; or geo:distance with georel=near'),
  options: text('count (Fiware-Total-Count header), keyValues, values or unique'),
});

const EntityReadQuery = Type.Object({
  type: text('When given, the entity must have this type (otherwise 404)'),
  attrs: text('Comma-separated attribute names to include, in this order'),
  options: text('keyValues, values or unique'),
});

/** The query of a read of one attribute: only the entity's type. */
const AttributeReadQuery = Type.Object({ type: text('When given, the entity must have this type') });

const AttributeParams = Type.Object({
  assetId: Type.String({ description: 'The asset id' }),
  attrName: Type.String({ description: 'The attribute name' }),
});

const TypeInfo = Type.Object({
  type: Type.Optional(Type.String()),
  attrs: Type.Record(Type.String(), Type.Object({ types: Type.Array(Type.String()) })),
  count: Type.Integer(),
});

const notFound = { ...errorRef, description: 'No such asset (or attribute, or type) of this site' };

export const listEntitiesSchema = {
  tags: ['federation'],
  summary: "List the site's own assets",
  security: bearerRequired,
  headers: ReadHeaders,
  querystring: ListEntitiesQuery,
  response: { 200: { ...Type.Array(Type.Union([Asset, Type.Array(Type.Unknown())])), description: 'A page of entities (with options=count, the Fiware-Total-Count header counts every match)' }, ...errors },
};

export const getEntitySchema = {
  tags: ['federation'],
  summary: "Read one of the site's own assets",
  security: bearerRequired,
  headers: ReadHeaders,
  params: AssetParams,
  querystring: EntityReadQuery,
  response: { 200: Asset, ...errors, 404: notFound },
};

export const getEntityAttributesSchema = {
  tags: ['federation'],
  summary: "Read an asset's attributes (no id, no type)",
  security: bearerRequired,
  headers: ReadHeaders,
  params: AssetParams,
  querystring: EntityReadQuery,
  response: { 200: Type.Record(Type.String(), Attribute), ...errors, 404: notFound },
};

export const getAttributeSchema = {
  tags: ['federation'],
  summary: 'Read one attribute of an asset',
  security: bearerRequired,
  headers: ReadHeaders,
  params: AttributeParams,
  querystring: AttributeReadQuery,
  response: { 200: Attribute, ...errors, 404: notFound },
};

export const getAttributeValueSchema = {
  tags: ['federation'],
  summary: "Read an attribute's value (objects and arrays as application/json, other values as text/plain JSON)",
  security: bearerRequired,
  headers: ReadHeaders,
  params: AttributeParams,
  querystring: AttributeReadQuery,
  response: { 200: Type.Unknown({ description: 'The value' }), ...errors, 404: notFound, 406: { ...errorRef, description: 'Accept allows no type the value can be written in' } },
};

export const listTypesSchema = {
  tags: ['federation'],
  summary: "The site's entity types, with their attributes and counts",
  security: bearerRequired,
  headers: ReadHeaders,
  querystring: Type.Object({
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 20 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
    options: text('count, values (type names only), noAttrDetail'),
  }),
  response: { 200: { ...Type.Array(Type.Union([TypeInfo, Type.String()])), description: 'A page of types in name order (with options=count, the Fiware-Total-Count header counts them all)' }, ...errors },
};

export const getTypeSchema = {
  tags: ['federation'],
  summary: "One of the site's entity types",
  security: bearerRequired,
  headers: ReadHeaders,
  params: Type.Object({ entityType: Type.String() }),
  querystring: Type.Object({ options: text('noAttrDetail') }),
  response: { 200: TypeInfo, ...errors, 404: { ...errorRef, description: 'The site has no asset of this type' } },
};

export const QueryOperation = Type.Object({
  entities: Type.Optional(Type.Array(Type.Object({
    id: text('An entity id (or idPattern)'),
    idPattern: text('A regular expression'),
    type: text('An entity type (or typePattern)'),
    typePattern: text('A regular expression'),
  }), { maxItems: 1000 })),
  attrs: Type.Optional(Type.Array(Type.String())),
  expression: Type.Optional(Type.Object({ q: text('Simple Query Language'), georel: text('georel'), geometry: text('geometry'), coords: text('coords') })),
}, { additionalProperties: false });

export const queryOperationSchema = {
  tags: ['federation'],
  summary: "Query the site's own assets by a body",
  security: bearerRequired,
  headers: ReadHeaders,
  querystring: Type.Object({
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 20 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
    orderBy: text('As for GET /v2/entities'),
    options: text('count, keyValues, values or unique'),
  }),
  body: QueryOperation,
  response: {
    200: { ...Type.Array(Type.Union([Asset, Type.Array(Type.Unknown())])), description: 'A page of entities (with options=count, the Fiware-Total-Count header counts every match)' },
    ...errors,
    413: { ...errorRef, description: 'Body over 1 MiB' },
    415: { ...errorRef, description: 'Content-Type is not application/json' },
  },
};
