import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

/**
 * Validates requests against the TypeBox schemas exactly, converting nothing:
 * a number or boolean where a string is expected is refused, never read as its
 * text, and query parameters stay the strings the client sent (src/domain reads
 * them, so that a bad offset gets the spec's 422).
 */
export const strictValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema }) => {
  const check = TypeCompiler.Compile(schema);
  return (value: unknown) => {
    if (check.Check(value)) return { value };
    const first = check.Errors(value).First();
    return { error: [{ instancePath: first?.path ?? '', message: first?.message ?? 'invalid', keyword: 'type', schemaPath: '#', params: {} }] };
  };
};
