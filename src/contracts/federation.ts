import { Type } from '@sinclair/typebox';
import { QueryObject } from './query.js';
import { bearerRequired } from './security.js';

/**
 * Federation interface (spec part A) schemas. They document the interface in
 * the OpenAPI document; the checks themselves run in src/domain, in the order
 * and with the descriptions the spec and the original platform give, so these
 * schemas are not used to validate requests.
 */

export const FederationError = Type.Object({
  error: Type.String({ description: 'Kind of error: BadRequest, Unauthorized, Forbidden, NotFound, Unprocessable, UnsupportedMediaType, PayloadTooLarge' }),
  description: Type.String({ description: 'What was wrong' }),
}, { $id: 'FederationError', description: 'Federation Error' });

const errorRef = Type.Ref('FederationError');

export const Attribute = Type.Object({
  type: Type.String({ minLength: 1, maxLength: 256 }),
  value: Type.Unknown({ description: 'Any JSON value' }),
  metadata: Type.Optional(Type.Record(Type.String(), Type.Object({ type: Type.Optional(Type.String()), value: Type.Unknown() }))),
}, { description: 'An NGSI v2 attribute in normalized form' });

export const TimeInstant = Type.Object({
  type: Type.Literal('urn:oc:attributeType:ISO8601'),
  value: Type.String({ description: 'UTC instant, YYYY-MM-DDTHH:mm:ss.SSSZ', examples: ['2017-07-25T13:35:00.000Z'] }),
  metadata: Type.Optional(Type.Object({})),
});

export const AssetCreation = Type.Object({
  id: Type.String({ description: 'urn:oc:entity:<site>:<service>:<provider>:[<group>:]<name> (experimenters: urn:oc:entity:experimenters:<experimenterId>:<experimentId>:<name>)', maxLength: 256 }),
  type: Type.String({ description: 'urn:oc:entityType:…', maxLength: 256 }),
  TimeInstant,
}, { additionalProperties: Attribute, description: 'AssetCreation: id, type, TimeInstant and any other attributes' });

export const AssetUpdate = Type.Object({
  TimeInstant,
}, { additionalProperties: Attribute, description: 'AssetUpdate: TimeInstant and the attributes to update or append; no id, no type' });

export const Asset = Type.Object({
  id: Type.String(),
  type: Type.String(),
}, { additionalProperties: Attribute, description: 'The asset in NGSI v2 normalized form' });

export const AssetParams = Type.Object({ assetId: Type.String({ description: 'The asset id (URL-encoded or not)' }) });

export const EntityQuery = QueryObject({
  type: Type.Optional(Type.String({ description: 'When given, the asset must have this type (otherwise 404)' })),
});

export const WriteHeaders = Type.Object({
  'platform-service': Type.Optional(Type.String({ description: 'Required (or its synonym Fiware-Service): the platform service name' })),
  'fiware-service': Type.Optional(Type.String({ description: 'Synonym of platform-service, as NGSI v2 clients send it' })),
});

const errors = {
  400: { ...errorRef, description: 'Malformed request (see the description)' },
  401: { ...errorRef, description: 'No valid bearer token' },
  403: { ...errorRef, description: 'The token lacks the role ocsite' },
};

export const createSchema = {
  tags: ['federation'],
  summary: 'Create an asset',
  security: bearerRequired,
  headers: WriteHeaders,
  body: AssetCreation,
  response: {
    201: { type: 'null', description: 'Created; Location: /v2/entities/<id>?type=<type>' },
    ...errors,
    413: { ...errorRef, description: 'Body over 1 MiB' },
    415: { ...errorRef, description: 'Content-Type is not application/json' },
    422: { ...errorRef, description: 'An asset with this id exists' },
  },
};

export const updateSchema = {
  tags: ['federation'],
  summary: 'Update or append attributes of an asset',
  security: bearerRequired,
  headers: WriteHeaders,
  params: AssetParams,
  querystring: EntityQuery,
  body: AssetUpdate,
  response: {
    204: { type: 'null', description: 'Updated' },
    ...errors,
    404: { ...errorRef, description: 'No such asset' },
    413: { ...errorRef, description: 'Body over 1 MiB' },
    415: { ...errorRef, description: 'Content-Type is not application/json' },
  },
};

export const deleteSchema = {
  tags: ['federation'],
  summary: 'Delete an asset (its history stays readable)',
  security: bearerRequired,
  params: AssetParams,
  querystring: EntityQuery,
  response: { 204: { type: 'null', description: 'Deleted' }, ...errors, 404: { ...errorRef, description: 'No such asset' } },
};
