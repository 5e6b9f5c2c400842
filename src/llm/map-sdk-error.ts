/**
 * The order in which an SDK failure is classified, shared by the `openai` and `@anthropic-ai/sdk`
 * mappers (their error classes have the same roles); only reading an HTTP error differs per SDK.
 */
import { LlmError } from '../errors.js';
import { cancelledFailure, type FailureContext, networkFailure } from './http-failure.js';

// biome-ignore lint/suspicious/noExplicitAny: any constructor signature, only used with instanceof
type ErrorClass<E> = abstract new (...args: any[]) => E;

/** One SDK's error classes. In both SDKs the abort and connection errors extend the API error. */
export interface SdkErrorClasses<E extends Error> {
  userAbort: ErrorClass<Error>;
  connection: ErrorClass<Error>;
  api: ErrorClass<E>;
}

export function mapSdkError<E extends Error>(
  err: unknown,
  ctx: FailureContext,
  classes: SdkErrorClasses<E>,
  fromApiError: (err: E) => LlmError,
): LlmError {
  if (err instanceof LlmError) return err;
  // Checked before `api`: the abort and connection classes are API errors too.
  if (err instanceof classes.userAbort) return cancelledFailure(ctx);
  if (err instanceof classes.connection) return networkFailure(err, ctx);
  if (err instanceof classes.api) return fromApiError(err);
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'APIUserAbortError')) {
    return cancelledFailure(ctx);
  }
  // Anything else (a socket reset mid-stream, a chunk that is not JSON) is a transport failure.
  return networkFailure(err, ctx);
}
