import { badRequest, type AppError } from './errors.js';

/**
 * The 400 for a query parameter that cannot be read, in the one wording every interface
 * uses (docs/discovery.md, docs/datasource.md): the parameter's name, then why.
 */
export const invalidParameter = (name: string, why: string): AppError => badRequest(`Invalid query parameter '${name}': ${why}`);
