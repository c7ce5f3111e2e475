import { Type } from '@sinclair/typebox';
import { Asset, AssetParams, AssetUpdate, Attribute, createSchema, updateSchema, WriteHeaders } from './federation.js';
import { QueryObject } from './query.js';
import { bearerRequired } from './security.js';

/**
 * Schemas of the NGSI v2 writes beyond create, append and delete: they
 * document the interface; as for every federation route, the checks run in
 * src/domain in the order and with the descriptions Orion's clients expect.
 */

const errorRef = Type.Ref('FederationError');

const errors = {
  400: { ...errorRef, description: 'Malformed request (see the description)' },
  401: { ...errorRef, description: 'No valid bearer token' },
  403: { ...errorRef, description: 'The token lacks the role ocsite' },
  404: { ...errorRef, description: 'No such asset (or attribute)' },
  413: { ...errorRef, description: 'Body over 1 MiB (or, for a batch, over 1,000 entities)' },
  415: { ...errorRef, description: 'Content-Type is not application/json' },
};

const unprocessable = { ...errorRef, description: 'Attributes refused: the description names them (Orion: "do not exist: …", "… already exist: …")' };

const typeParameter = Type.Optional(Type.String({ description: 'When given, the asset must have this type (otherwise 404)' }));
const options = (values: string) => Type.Optional(Type.String({ description: `Comma-separated options: ${values}` }));

export const AttributeParams = Type.Object({
  assetId: Type.String({ description: 'The asset id' }),
  attrName: Type.String({ description: 'The attribute name' }),
});

const noContent = (description: string) => ({ 204: { type: 'null', description } });

export const createEntitySchema = {
  ...createSchema,
  summary: 'Create an asset (options=upsert: or append its attributes when it exists, 204 either way)',
  querystring: QueryObject({ options: options('upsert, keyValues (bare values)') }),
  response: { ...createSchema.response, ...noContent('Created or updated (upsert); Location: /v2/entities/<id>?type=<type>') },
};

export const appendAttributesSchema = {
  ...updateSchema,
  summary: 'Update or append attributes (options=append: append only, 422 naming those that exist)',
  querystring: QueryObject({ type: typeParameter, options: options('append (strict), keyValues') }),
  response: { ...updateSchema.response, 422: unprocessable },
};

export const patchAttributesSchema = {
  tags: ['federation'],
  summary: 'Update existing attributes (422 naming those the asset lacks; nothing written then)',
  security: bearerRequired,
  headers: WriteHeaders,
  params: AssetParams,
  querystring: QueryObject({ type: typeParameter, options: options('keyValues') }),
  body: AssetUpdate,
  response: { ...noContent('Updated'), ...errors, 422: unprocessable },
};

export const replaceAttributesSchema = {
  tags: ['federation'],
  summary: 'Replace all attributes of an asset',
  security: bearerRequired,
  headers: WriteHeaders,
  params: AssetParams,
  querystring: QueryObject({ type: typeParameter, options: options('keyValues') }),
  body: AssetUpdate,
  response: { ...noContent('Replaced'), ...errors },
};

export const replaceAttributeSchema = {
  tags: ['federation'],
  summary: 'Replace one existing attribute (type omitted: its type kept; observed at metadata.TimeInstant, else at receipt)',
  security: bearerRequired,
  headers: WriteHeaders,
  params: AttributeParams,
  querystring: QueryObject({ type: typeParameter }),
  body: Type.Partial(Attribute),
  response: { ...noContent('Replaced'), ...errors },
};

export const replaceAttributeValueSchema = {
  tags: ['federation'],
  summary: "Set one existing attribute's value (type and metadata kept; observed at receipt)",
  security: bearerRequired,
  headers: WriteHeaders,
  params: AttributeParams,
  querystring: QueryObject({ type: typeParameter }),
  body: Type.Unknown({ description: 'application/json: any JSON value; text/plain: a number, true, false, null or a quoted string' }),
  response: { ...noContent('Set'), ...errors },
};

export const deleteAttributeSchema = {
  tags: ['federation'],
  summary: 'Remove an attribute (its history stays readable; TimeInstant cannot be removed)',
  security: bearerRequired,
  params: AttributeParams,
  querystring: QueryObject({ type: typeParameter }),
  response: { ...noContent('Removed'), ...errors },
};

const BatchUpdate = Type.Object({
  actionType: Type.String({ enum: ['append', 'appendStrict', 'update', 'delete', 'replace', 'APPEND', 'APPEND_STRICT', 'UPDATE', 'DELETE', 'REPLACE'] }),
  entities: Type.Array(Asset, { minItems: 1, maxItems: 1000 }),
}, { description: 'Each entity is written as its single operation; not atomic' });

export const batchUpdateSchema = {
  tags: ['federation'],
  summary: 'Write up to 1,000 entities at once (append, appendStrict, update, delete, replace)',
  security: bearerRequired,
  headers: WriteHeaders,
  querystring: QueryObject({ options: options('keyValues') }),
  body: BatchUpdate,
  response: {
    ...noContent('Every entity written'),
    ...errors,
    404: { ...errorRef, description: 'None of the entities exists: "do not exist: E/T [entity itself], …"' },
    422: { ...errorRef, description: 'PartialUpdate (some written) or Unprocessable (none written): the description names each entity and attribute that failed' },
  },
};

const Notification = Type.Object({
  subscriptionId: Type.String(),
  data: Type.Array(Asset, { minItems: 1, maxItems: 1000 }),
}, { description: 'An NGSI v2 notification, as an Orion broker sends it' });

export const notifySchema = {
  tags: ['federation'],
  summary: "Accept an Orion broker's notification: each entity is created or its attributes appended",
  security: bearerRequired,
  body: Notification,
  response: {
    200: { type: 'null', description: 'Every entity written' },
    ...errors,
    422: { ...errorRef, description: 'PartialUpdate or Unprocessable, as for /v2/op/update' },
  },
};
