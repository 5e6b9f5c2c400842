/** Maps `@anthropic-ai/sdk` failures to LlmError. One mapper per SDK; the status policy is in http-failure.ts. */
import { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { LlmError } from '../errors.js';
import { attachRetryAfter, type FailureContext, httpFailure, networkFailure } from './http-failure.js';
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

export function mapAnthropicError(err: unknown, ctx: FailureContext): LlmError {
  if (err instanceof LlmError) return err;
  const details = { provider: ctx.provider, model: ctx.model };
  if (err instanceof APIUserAbortError)
    return new LlmError('cancelled', `${ctx.provider}/${ctx.model}: cancelled`, details);
  if (err instanceof APIConnectionError) return networkFailure(err, ctx);
  if (err instanceof APIError) {
    const message = err.apiMessage ?? err.message;
    const status = err.status ?? STREAM_ERROR_STATUS[err.type ?? ''] ?? 500;
    return attachRetryAfter(httpFailure(status, message, ctx), parseRetryAfter(err.headers));
  }
  if (err instanceof Error && err.name === 'AbortError') {
    return new LlmError('cancelled', `${ctx.provider}/${ctx.model}: cancelled`, details);
  }
  return networkFailure(err, ctx);
}
