/** Maps `@anthropic-ai/sdk` failures to LlmError. One mapper per SDK; the status policy is in http-failure.ts. */
import { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type { LlmError } from '../errors.js';
import { attachRetryAfter, type FailureContext, httpFailure } from './http-failure.js';
import { mapSdkError } from './map-sdk-error.js';
import { parseRetryAfter } from './retry-after.js';

/** Error types Anthropic sends inside a stream (`event: error`), where there is no HTTP status. */
const STREAM_ERROR_STATUS: Record<string, number> = {
  overloaded_error: 529,
  rate_limit_error: 429,
  api_error: 500,
  authentication_error: 401,
  permission_error: 403,
  invalid_request_error: 400,
  billing_error: 402,
};

const ANTHROPIC_ERRORS = { userAbort: APIUserAbortError, connection: APIConnectionError, api: APIError };

export function mapAnthropicError(err: unknown, ctx: FailureContext): LlmError {
  return mapSdkError(err, ctx, ANTHROPIC_ERRORS, (apiError) => {
    const message = apiError.apiMessage ?? apiError.message;
    const status = apiError.status ?? STREAM_ERROR_STATUS[apiError.type ?? ''] ?? 500;
    return attachRetryAfter(httpFailure(status, message, ctx), parseRetryAfter(apiError.headers));
  });
}
