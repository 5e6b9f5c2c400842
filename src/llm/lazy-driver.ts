/**
 * A provider driver whose SDK loads on the first call, so a process only pays for the SDKs of the
 * models it uses (the Anthropic SDK alone adds ~23 MiB, the openai SDK ~12 MiB and 100+ ms of start).
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
  let loading: Promise<ProviderDriver> | undefined;
  let loaded: ProviderDriver | undefined;
  const driver = (): Promise<ProviderDriver> =>
    (loading ??= load().then((ready) => {
      loaded = ready;
      return ready;
    }));
  async function* firstAttempt(request: LlmRequest, io: Parameters<ProviderDriver['attempt']>[1]) {
    yield* (await driver()).attempt(request, io);
  }
  return {
    apiModel,
    // Once loaded, the SDK driver's own stream is returned: no extra layer per chunk.
    attempt: (request, io): AsyncIterable<StreamPart> =>
      loaded ? loaded.attempt(request, io) : firstAttempt(request, io),
    // Before the SDK loaded, no SDK error can exist: only a failed import, a transport failure.
    mapError: (err) => loaded?.mapError(err) ?? (err instanceof LlmError ? err : networkFailure(err, ctx)),
    recover: (error, request) => loaded?.recover?.(error, request),
  };
}
