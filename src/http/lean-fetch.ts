/**
 * A `fetch` for API clients that send a small body and read a small answer (the Slack Web API
 * client: about ten calls per turn). Node's own fetch wraps every call in web streams, a Request, a
 * Response, Headers and abort plumbing; undici's `request` under it does the same HTTP work for a
 * fraction of the CPU (docs/performance.md). Only the plain case takes the short path: a string,
 * URLSearchParams or byte body, and redirects not followed (`redirect: 'error'` or `'manual'`, as
 * the Slack client sends). Anything else — a stream or FormData body (file uploads), a Request
 * object, redirects to follow — goes to the global fetch unchanged.
 *
 * What comes back is the part of a Response such clients read, with the body already read (the
 * answers are small): status, statusText, ok, url, headers (get / has / entries / forEach), text(),
 * json(), arrayBuffer(). Failures look like fetch's: `TypeError('fetch failed')` with the cause, or
 * the signal's reason once aborted.
 */
import { STATUS_CODES } from 'node:http';
import { LeanHeaders, type RawHeaders } from './lean-headers.js';
import { request } from './undici-request.js';

class LeanResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly url: string;
  readonly redirected = false;
  readonly headers: LeanHeaders;
  readonly bodyUsed = false;
  readonly #bytes: Buffer;

  constructor(url: string, status: number, headers: RawHeaders, bytes: Buffer) {
    this.url = url;
    this.status = status;
    this.statusText = STATUS_CODES[status] ?? '';
    this.ok = status >= 200 && status <= 299;
    this.headers = new LeanHeaders(headers);
    this.#bytes = bytes;
  }

  async text(): Promise<string> {
    const text = this.#bytes.toString('utf8');
    // fetch decodes UTF-8 without the byte-order mark.
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const { buffer, byteOffset, byteLength } = this.#bytes;
    return buffer.slice(byteOffset, byteOffset + byteLength) as ArrayBuffer;
  }
}

function plainBody(body: RequestInit['body']): string | Uint8Array | undefined | false {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof Uint8Array) return body;
  return false;
}

function plainHeaders(headers: RequestInit['headers']): Record<string, string> | false {
  if (headers === undefined) return {};
  if (headers instanceof Headers || Array.isArray(headers)) return false;
  return headers as Record<string, string>;
}

export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * A leanFetch whose short-path calls fail (`TypeError('fetch failed')`, cause undici's timeout
 * error) when the server sends no headers, or then no body bytes, for `timeoutMs`: the limit a
 * client would otherwise set with `AbortSignal.timeout` per call, which costs a signal, a timer and
 * a finalizer registration each time (measurable at ten calls per turn); undici's own timers are
 * shared. Calls that go to the global fetch get `AbortSignal.timeout` as before.
 */
export function leanFetchWithin(timeoutMs: number): Fetch {
  return (input, init = {}) => send(input, init, timeoutMs);
}

export function leanFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  return send(input, init, undefined);
}

async function send(
  input: string | URL | Request,
  init: RequestInit,
  timeoutMs: number | undefined,
): Promise<Response> {
  const body = plainBody(init.body);
  const headers = plainHeaders(init.headers);
  const noRedirects = init.redirect === 'error' || init.redirect === 'manual';
  if (input instanceof Request || body === false || headers === false || !noRedirects) {
    if (timeoutMs === undefined) return globalThis.fetch(input, init);
    const timeout = AbortSignal.timeout(timeoutMs);
    return globalThis.fetch(input, {
      ...init,
      signal: init.signal ? AbortSignal.any([init.signal, timeout]) : timeout,
    });
  }
  const url = String(input);
  const signal = init.signal ?? undefined;
  if (signal?.aborted) throw signal.reason;
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(url, {
      method: (init.method ?? 'GET') as 'GET',
      headers,
      body,
      ...(signal ? { signal } : {}),
      ...(timeoutMs === undefined ? {} : { headersTimeout: timeoutMs, bodyTimeout: timeoutMs }),
    });
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    throw new TypeError('fetch failed', { cause: err });
  }
  const { statusCode } = response;
  if (init.redirect === 'error' && statusCode >= 300 && statusCode < 400 && response.headers.location) {
    // fetch refuses a redirect it was told not to follow; drain the body so the socket is reused.
    await response.body.dump().catch(() => undefined);
    throw new TypeError('fetch failed', { cause: new Error(`unexpected redirect (HTTP ${statusCode})`) });
  }
  // Read at once (answers are small): a caller that never reads the body (a 429) cannot hold the
  // connection, and the body can be read in any form afterwards.
  let bytes: Buffer;
  try {
    bytes = Buffer.from(await response.body.arrayBuffer());
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    throw new TypeError('fetch failed', { cause: err });
  }
  return new LeanResponse(url, statusCode, response.headers, bytes) as unknown as Response;
}
