/**
 * The SDK client compiles every listed tool's output schema while listing; one invalid schema would
 * make the whole `tools/list` fail and take the server's good tools with it. This validator compiles
 * with the SDK's own ajv provider and turns a broken schema into a validator that refuses, so only
 * that tool's results are refused (its input schema is checked separately, in mcp-tools.ts).
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation/types.js';

const ajvProvider = new AjvJsonSchemaValidator();

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
