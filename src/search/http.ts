/**
 * One place where search providers talk HTTP: over Scout's keep-alive pool (src/http/lean-fetch.ts,
 * one connection per provider host reused across searches and turns) with the caller's signal and a
 * timeout, failures mapped to SearchError (messages never contain the API key or the response body).
 * A redirect is followed by the global fetch, as before.
 */
import { CancelledError, SearchError } from '../errors.js';
import { leanFetch } from '../http/lean-fetch.js';
import { redactSecrets } from '../llm/redact.js';
import type { SearchProviderName } from './types.js';

/** What providers send: plain headers and a text body (the lean path takes nothing else). */
export interface ProviderInit {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

export interface ProviderHttpOptions {
  provider: SearchProviderName;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Maps a status to a clearer message than "HTTP 403" (SearXNG's disabled JSON format). */
  statusMessage?: (status: number) => string | undefined;
}

function defaultStatusMessage(provider: string, status: number): string {
  if (status === 401 || status === 403)
    return `${provider} rejected the request (HTTP ${status}): check the API key`;
  if (status === 429) return `${provider} rate limit reached (HTTP 429)`;
  if (status >= 500) return `${provider} server error (HTTP ${status})`;
  return `${provider} request failed (HTTP ${status})`;
}

/** Fetches and returns the response; throws SearchError / CancelledError. */
export async function providerFetch(
  url: URL,
  init: ProviderInit,
  options: ProviderHttpOptions,
): Promise<Response> {
  const { provider, timeoutMs, signal } = options;
  if (signal?.aborted) throw new CancelledError('search cancelled');
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const { target, headers } = withUrlCredentials(url, init.headers);
  let response: Response;
  try {
    const request: RequestInit = { ...init, headers, signal: combined };
    response = await leanFetch(target, { ...request, redirect: 'manual' });
    if (isRedirect(response)) response = await fetch(target, { ...request, redirect: 'follow' });
  } catch (err) {
    if (signal?.aborted) throw new CancelledError('search cancelled');
    if (timeout.aborted) throw new SearchError(`${provider} did not answer within ${timeoutMs} ms`, provider);
    const reason =
      err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    // Failure messages quote URLs; this one reaches logs, the model and the failed step the user sees.
    throw new SearchError(`${provider} unreachable: ${redactSecrets(reason)}`, provider, undefined, {
      cause: err,
    });
  }
  if (!response.ok) {
    // The lean path has read the body (the connection is reused); a followed redirect's is dropped.
    await response.body?.cancel().catch(() => {});
    const message =
      options.statusMessage?.(response.status) ?? defaultStatusMessage(provider, response.status);
    throw new SearchError(message, provider, response.status);
  }
  return response;
}

function isRedirect(response: Response): boolean {
  return response.status >= 300 && response.status < 400 && response.headers.has('location');
}

/**
 * `https://user:pass@searx.example` (a self-hosted SearXNG behind basic auth): fetch refuses URLs
 * with credentials and quotes the whole URL in its error, so they travel as an Authorization header.
 * Plain objects, not `Headers`: reading that global loads Node's whole bundled fetch.
 */
function withUrlCredentials(
  url: URL,
  given: Record<string, string> | undefined,
): { target: URL; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given ?? {})) headers[name.toLowerCase()] = value;
  if (!url.username && !url.password) return { target: url, headers };
  const target = new URL(url);
  const user = decodeURIComponent(target.username);
  const password = decodeURIComponent(target.password);
  target.username = '';
  target.password = '';
  headers['authorization'] ??= `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  return { target, headers };
}

/** Reads a JSON body; a body that is not JSON is a SearchError. */
export async function readJson(response: Response, provider: SearchProviderName): Promise<unknown> {
  try {
    return await response.json();
  } catch (err) {
    throw new SearchError(`${provider} returned a response that is not JSON`, provider, response.status, {
      cause: err,
    });
  }
}

/** Reads a text body (DuckDuckGo HTML), mapping a mid-body timeout to SearchError. */
export async function readText(response: Response, provider: SearchProviderName): Promise<string> {
  try {
    return await response.text();
  } catch (err) {
    throw new SearchError(`${provider} response could not be read`, provider, response.status, {
      cause: err,
    });
  }
}
