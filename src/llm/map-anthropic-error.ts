/** Maps `@anthropic-ai/sdk` failures to LlmError. One mapper per SDK; the status policy is in http-failure.ts. */
import { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type { LlmError } from '../errors.js';
import { attachRetryAfter, type FailureContext, httpFailure, readErrorBody } from './http-failure.js';
import { mapSdkError } from './map-sdk-error.js';
import { parseRetryAfter } from './retry-after.js';

const ANTHROPIC_ERRORS = { userAbort: APIUserAbortError, connection: APIConnectionError, api: APIError };

export function mapAnthropicError(err: unknown, ctx: FailureContext): LlmError {
  return mapSdkError(err, ctx, ANTHROPIC_ERRORS, (apiError) => {
    // Inside a stream (`event: error`) there is no HTTP status; the error type says what it was.
    const body = readErrorBody(apiError.error);
    const code = apiError.type ?? body.code;
    const status = apiError.status ?? body.status ?? 500;
    const message = apiError.apiMessage ?? body.message ?? apiError.message;
    return attachRetryAfter(
      httpFailure(status, message, ctx, code ?? undefined),
      parseRetryAfter(apiError.headers),
    );
  });
}
