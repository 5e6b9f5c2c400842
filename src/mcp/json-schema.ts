/**
 * JSON Schema checking for MCP tools, with ajv: a tool's input schema is compiled once when the tool
 * list arrives (an invalid schema drops that tool, not the server), and the model's arguments are
 * checked against it before the call goes out. Draft 2020-12 schemas (what zod 4 servers emit) and
 * draft-07 ones (most others) each get the matching ajv. Both are bounded against a hostile server: a
 * schema over MAX_INPUT_SCHEMA_CHARS is refused before ajv sees it (it would go to the model with
 * every request), and `pattern` runs on a linear-time engine (linear-regexp.ts).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { linearRegExp } from './linear-regexp.js';

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

// Servers write schemas for many validators: unknown keywords are allowed (strict off), but a
// schema that breaks the meta-schema is refused (validateSchema on), ajv never logs, and patterns
// never backtrack.
const options = {
  strict: false,
  validateSchema: true,
  allErrors: true,
  logger: false,
  code: { regExp: linearRegExp },
} as const;

/**
 * Largest input schema accepted, as JSON text. Real tools need a few KB; the schema travels with every
 * request to the model, so one 200 KB schema would make each request 200 KB larger.
 */
export const MAX_INPUT_SCHEMA_CHARS = 16 * 1024;
const draft07 = addFormats(new Ajv(options));
const draft2020 = addFormats(new Ajv2020(options) as unknown as Ajv);

export type ArgumentCheck = (value: unknown) => string[];

/** Compiles a schema; throws with ajv's reason when the schema itself is invalid. */
export function compileSchema(schema: Record<string, unknown>): ArgumentCheck {
  const dialect = typeof schema['$schema'] === 'string' ? schema['$schema'] : '';
  const ajv = /2020-12|2019-09/.test(dialect) ? draft2020 : draft07;
  // A `$id` would register the schema globally, and a second server reusing it would clash.
  const { $id: _id, ...rest } = schema;
  const validate: ValidateFunction = ajv.compile(rest);
  return (value) => {
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (e) =>
        `${e.instancePath ? e.instancePath.slice(1).replaceAll('/', '.') : 'arguments'}: ${e.message ?? 'invalid'}`,
    );
  };
}

/** The schema as the model's function definition: no `$schema` marker, always an object. */
export function toolParametersFrom(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return { type: 'object', ...rest };
}
