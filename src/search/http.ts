/**
 * One place where search providers talk HTTP: global fetch with the caller's signal and a timeout,
 * failures mapped to SearchError (messages never contain the API key or the response body).
 */
import { CancelledError, SearchError } from '../errors.js';
import { redactSecrets } from '../llm/redact.js';
import type { SearchProviderName } from './types.js';

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
  init: RequestInit,
  options: ProviderHttpOptions,
): Promise<Response> {
  const { provider, timeoutMs, signal } = options;
  if (signal?.aborted) throw new CancelledError('search cancelled');
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const { target, headers } = withUrlCredentials(url, init.headers);
  let response: Response;
  try {
    response = await fetch(target, { ...init, headers, signal: combined, redirect: 'follow' });
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
    // Drain the body so the connection can be reused.
    await response.body?.cancel().catch(() => {});
    const message =
      options.statusMessage?.(response.status) ?? defaultStatusMessage(provider, response.status);
    throw new SearchError(message, provider, response.status);
  }
  return response;
}

/**
 * `https://user:pass@searx.example` (a self-hosted SearXNG behind basic auth): fetch refuses URLs
 * with credentials and quotes the whole URL in its error, so they travel as an Authorization header.
 */
function withUrlCredentials(url: URL, headers: RequestInit['headers']): { target: URL; headers: Headers } {
  const merged = new Headers(headers);
  if (!url.username && !url.password) return { target: url, headers: merged };
  const target = new URL(url);
  const user = decodeURIComponent(target.username);
  const password = decodeURIComponent(target.password);
  target.username = '';
  target.password = '';
  if (!merged.has('authorization')) {
    merged.set('authorization', `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`);
  }
  return { target, headers: merged };
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
