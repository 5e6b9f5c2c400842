/**
 * undici's `request`, loaded without undici's index. The index loads every part of undici at once
 * (fetch, WebSocket, caches, mocks, interceptors: ~110 modules, about 70 ms of a cold start on
 * 2 vCPU); `request` needs its handler, the Agent and the shared global dispatcher (~30 modules).
 * It is the same `request` the index exports (`makeDispatcher(api.request)` there): the URL becomes
 * `origin` + `path` and the call goes to the global dispatcher, which is the one undici's index
 * would use (a process-wide symbol), so a package that loads the index later shares the same pool.
 * undici has no `exports` map, so these paths resolve; the provider and Slack tests go through here,
 * and test/core/start-loads.test.ts fails if a start loads undici's index again.
 */
import { createRequire } from 'node:module';
import type { Dispatcher, request as undiciRequest } from 'undici';

type Request = typeof undiciRequest;
type RequestOptions = NonNullable<Parameters<Request>[1]>;

// createRequire, not `import`: CommonJS files loaded through require skip the ES module loader's
// export analysis, and the bundle keeps them external like the rest of undici.
const load = createRequire(import.meta.url);
const apiRequest = load('undici/lib/api/api-request.js') as (
  this: Dispatcher,
  options: Dispatcher.RequestOptions,
) => ReturnType<Request>;
const { getGlobalDispatcher } = load('undici/lib/global.js') as { getGlobalDispatcher(): Dispatcher };

/** `request(url, options)` for an absolute URL, as undici's own (no `path`, `agent` or handler forms). */
export function request(url: string, options: RequestOptions): ReturnType<Request> {
  const target = new URL(url);
  const { dispatcher = getGlobalDispatcher(), ...rest } = options;
  return apiRequest.call(dispatcher, {
    ...rest,
    origin: target.origin,
    path: target.search ? `${target.pathname}${target.search}` : target.pathname,
    method: rest.method ?? (rest.body ? 'PUT' : 'GET'),
  } as Dispatcher.RequestOptions);
}
