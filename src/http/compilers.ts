// What turns the routes' schemas into code: Ajv for what comes in, fast-json-stringify for what goes out.
// Building an app compiles every route's schemas, about 0.2 s of CPU (two thirds of starting a service), and
// the code compiled from a schema depends on that schema alone (and on the app's shared schemas, the same in
// every app: `ErrorEnvelope`). So the compiled code is kept per schema
// object, and services built in one process may share it: a deployed process builds one app and makes its
// own; the test suite builds hundreds per worker process and passes one to each (`ServiceOptions`).
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyServerOptions } from 'fastify';
import { addSchemaRules } from './schema-rules.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
type Serializer = (doc: unknown) => string;

export interface Compilers {
  /** Bodies, validated as sent (no coercion, every error listed). Ajv keeps what it compiled per schema. */
  readonly body: Ajv;
  /** Query strings and path parameters, which arrive as text: coerced to the schema's types. */
  readonly params: Ajv;
  readonly serializers: WeakMap<object, Serializer>;
}

export function createCompilers(): Compilers {
  const options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false } as const;
  const body = addFormats(new Ajv({ ...options, coerceTypes: false }));
  const params = addFormats(new Ajv({ ...options, coerceTypes: 'array' }));
  addSchemaRules(body);
  addSchemaRules(params);
  return { body, params, serializers: new WeakMap() };
}

/** Fastify's options that compile through `compilers`: its default serializer, each schema compiled once. */
export function compilerOptions(compilers: Compilers): Pick<FastifyServerOptions, 'schemaController'> {
  return {
    schemaController: {
      compilersFactory: {
        buildSerializer: (external: unknown, options: unknown) => {
          const compile = SerializerSelector()(external, options as never);
          return (route: { schema?: unknown; method: string; url: string; httpStatus: string }) => {
            const schema = route.schema as object;
            let serializer = compilers.serializers.get(schema);
            if (!serializer) {
              serializer = compile(route);
              compilers.serializers.set(schema, serializer);
            }
            return serializer;
          };
        },
      },
    },
  };
}
