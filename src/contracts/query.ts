import { Type, type TProperties } from '@sinclair/typebox';

/**
 * A query string: parameters it does not declare are dropped before the
 * handler runs (Ajv's removeAdditional), so a route reads only what it
 * documents, and a repeated undeclared parameter never reaches it as an array.
 */
export const QueryObject = <T extends TProperties>(properties: T) => Type.Object(properties, { additionalProperties: false });
