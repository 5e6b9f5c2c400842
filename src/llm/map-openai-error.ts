/** Maps `openai` SDK failures to LlmError. One mapper per SDK; the status policy is in http-failure.ts. */
import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import type { LlmError } from '../errors.js';
import { attachRetryAfter, type FailureContext, httpFailure } from './http-failure.js';
import { mapSdkError } from './map-sdk-error.js';
import { parseRetryAfter } from './retry-after.js';

const OPENAI_ERRORS = { userAbort: APIUserAbortError, connection: APIConnectionError, api: APIError };

export function mapOpenAIError(err: unknown, ctx: FailureContext): LlmError {
  return mapSdkError(err, ctx, OPENAI_ERRORS, (apiError) => {
    if (apiError.status === undefined) {
      // An error object inside the stream (`data: {"error": …}`): treat like a server error.
      return httpFailure(500, apiError.message, ctx);
    }
    const body = apiError.error as { message?: unknown } | undefined;
    const message = typeof body?.message === 'string' ? body.message : apiError.message;
    return attachRetryAfter(httpFailure(apiError.status, message, ctx), parseRetryAfter(apiError.headers));
  });
}
