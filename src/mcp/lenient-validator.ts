/**
 * The SDK client compiles every listed tool's output schema while listing; one invalid schema would
 * make the whole `tools/list` fail and take the server's good tools with it. This validator compiles
 * with the SDK's own ajv provider and turns a broken schema into a validator that refuses, so only
 * that tool's results are refused (its input schema is checked separately, in mcp-tools.ts). Its ajv
 * matches `pattern` in linear time, as json-schema.ts does: the server picks both the output schema
 * and the result checked against it.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation/types.js';

import { linearRegExp } from './linear-regexp.js';

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

// The SDK's own defaults, plus the linear-time pattern engine.
const ajvProvider = new AjvJsonSchemaValidator(
  addFormats(
    new Ajv({
      strict: false,
      validateFormats: true,
      validateSchema: false,
      allErrors: true,
      logger: false,
      code: { regExp: linearRegExp },
    }),
  ),
);

export const lenientValidator: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    try {
      return ajvProvider.getValidator<T>(schema);
    } catch {
      return () => ({
        valid: false,
        data: undefined,
        errorMessage: 'the tool declares an invalid output schema',
      });
    }
  },
};
