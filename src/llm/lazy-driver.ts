/**
 * A provider driver whose SDK loads when its first client is created, in the background, so a
 * process only pays for the SDKs of the models it uses (the Anthropic SDK alone adds ~23 MiB, the
 * openai SDK ~12 MiB and 100+ ms of start-up). `ready()` lets the caller wait for it before its
 * time limits start: loading a library is not the provider being silent.
 */
import { LlmError } from '../errors.js';
import { type FailureContext, networkFailure } from './http-failure.js';
import type { ProviderDriver } from './streaming-client.js';
import type { LlmRequest, StreamPart } from './types.js';

export function lazyDriver(
  apiModel: string,
  ctx: FailureContext,
  load: () => Promise<ProviderDriver>,
): ProviderDriver {
  let loaded: ProviderDriver | undefined;
  const loading = load().then((ready) => {
    loaded = ready;
    return ready;
  });
  // A failed import surfaces at the first attempt, not as an unhandled rejection now.
  loading.catch(() => {});
  async function* firstAttempt(request: LlmRequest, io: Parameters<ProviderDriver['attempt']>[1]) {
    yield* (await loading).attempt(request, io);
  }
  return {
    apiModel,
    ready: async () => {
      await loading;
    },
    // Once loaded, the SDK driver's own stream is returned: no extra layer per chunk.
    attempt: (request, io): AsyncIterable<StreamPart[]> =>
      loaded ? loaded.attempt(request, io) : firstAttempt(request, io),
    // Before the SDK loaded, no SDK error can exist: only a failed import, a transport failure.
    mapError: (err) => loaded?.mapError(err) ?? (err instanceof LlmError ? err : networkFailure(err, ctx)),
    recover: (error, request) => loaded?.recover?.(error, request),
  };
}
