/** Maps `openai` SDK failures to LlmError. One mapper per SDK; the status policy is in http-failure.ts. */
import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { LlmError } from '../errors.js';
import { attachRetryAfter, type FailureContext, httpFailure, networkFailure } from './http-failure.js';
import { parseRetryAfter } from './retry-after.js';

export function mapOpenAIError(err: unknown, ctx: FailureContext): LlmError {
  if (err instanceof LlmError) return err;
  const details = { provider: ctx.provider, model: ctx.model };
  if (err instanceof APIUserAbortError)
    return new LlmError('cancelled', `${ctx.provider}/${ctx.model}: cancelled`, details);
  if (err instanceof APIConnectionError) return networkFailure(err, ctx);
  if (err instanceof APIError) {
    if (err.status === undefined) {
      // An error object inside the stream (`data: {"error": …}`): treat like a server error.
      return httpFailure(500, err.message, ctx);
    }
    const body = err.error as { message?: unknown } | undefined;
    const message = typeof body?.message === 'string' ? body.message : err.message;
    return attachRetryAfter(httpFailure(err.status, message, ctx), parseRetryAfter(err.headers));
  }
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'APIUserAbortError')) {
    return new LlmError('cancelled', `${ctx.provider}/${ctx.model}: cancelled`, details);
  }
  // Anything else (a socket reset mid-stream, a chunk that is not JSON) is a transport failure.
  return networkFailure(err, ctx);
}
