/** Maps `openai` SDK failures to LlmError. One mapper per SDK; the status policy is in http-failure.ts. */
import { APIConnectionError, APIError, APIUserAbortError } from 'openai/core/error';
import type { LlmError } from '../errors.js';
import {
  attachRetryAfter,
  bodyFailure,
  type FailureContext,
  httpFailure,
  readErrorBody,
} from './http-failure.js';
import { mapSdkError } from './map-sdk-error.js';
import { parseRetryAfter } from './retry-after.js';

const OPENAI_ERRORS = { userAbort: APIUserAbortError, connection: APIConnectionError, api: APIError };

export function mapOpenAIError(err: unknown, ctx: FailureContext): LlmError {
  return mapSdkError(err, ctx, OPENAI_ERRORS, (apiError) => {
    if (apiError.status === undefined) {
      // An error object inside the stream (`data: {"error": …}`): its body says what it is
      // (Groq `status_code: 400`, OpenRouter `code: 400`), so a bad request is not retried.
      return bodyFailure(apiError.error, apiError.message, ctx);
    }
    const body = readErrorBody(apiError.error);
    return attachRetryAfter(
      httpFailure(apiError.status, body.message ?? apiError.message, ctx, body.code),
      parseRetryAfter(apiError.headers),
    );
  });
}
