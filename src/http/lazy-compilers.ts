import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/**
 * Fastify's own validator and serializer compilers (Ajv, fast-json-stringify),
 * each route schema compiled on its first use instead of at start-up: the
 * platform has some two hundred route schemas, and compiling them all before
 * listening was most of its start-up time. A route pays its compilation once,
 * on its first request; what it compiles is the same as before.
 */
type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type Validator = ((data: unknown) => unknown) & { errors?: unknown };

export function lazyCompilers(): CompilersFactory {
  const buildValidator = AjvCompiler();
  const buildSerializer = SerializerSelector();
  return {
    buildValidator: (externalSchemas: unknown, ajvOptions: unknown) => {
      const compile = buildValidator(externalSchemas as never, ajvOptions as never);
      return (route: unknown) => {
        let compiled: Validator | undefined;
        // Fastify reads the errors of a failed validation from the validator function itself.
        const validate: Validator = (data) => {
          compiled ??= compile(route as never) as Validator;
          const valid = compiled(data);
          validate.errors = compiled.errors;
          return valid;
        };
        return validate as never;
      };
    },
    buildSerializer: (externalSchemas: unknown, serializerOptions: unknown) => {
      const compile = buildSerializer(externalSchemas as never, serializerOptions as never);
      return (route: unknown) => {
        let compiled: ((data: unknown) => string) | undefined;
        return (data: unknown) => (compiled ??= compile(route as never))(data);
      };
    },
  };
}
