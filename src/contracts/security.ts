/**
 * The OpenAPI security requirements of the interfaces, named once so that the
 * documents cannot drift apart (the `bearer` scheme is declared in src/http/openapi.ts).
 */

/** A bearer token is required. */
export const bearerRequired: Array<Record<string, string[]>> = [{ bearer: [] }];

/** A bearer token is optional: it only widens what is visible (discovery, datasource). */
export const bearerOptional: Array<Record<string, string[]>> = [{}, { bearer: [] }];
