/**
 * A `fetch` for API clients that send a small body and read a small answer (the Slack Web API
 * client: about ten calls per turn). Node's own fetch wraps every call in web streams, a Request, a
 * Response, Headers and abort plumbing; a plain `node:http` request does the same HTTP work for a
 * fraction of the CPU (docs/performance.md). Not undici's `request`, which was as cheap: its HTTP
 * parser is WebAssembly, and V8's background tier-up of it on the first responses briefly held
 * ~35 MiB, the whole of Scout's peak RSS under 50 concurrent turns (docs/performance.md, Memory);
 * node:http parses with Node's native llhttp. Only the plain case takes the short path: a string,
 * URLSearchParams or byte body, and redirects not followed (`redirect: 'error'` or `'manual'`, as
 * the Slack client sends). Anything else — a stream or FormData body (file uploads), a Request
 * object, redirects to follow — goes to the global fetch unchanged.
 *
 * What comes back is the part of a Response such clients read, with the body already read (the
 * answers are small): status, statusText, ok, url, headers (get / has / entries / forEach), text(),
 * json(), arrayBuffer(). Failures look like fetch's: `TypeError('fetch failed')` with the cause, or
 * the signal's reason once aborted.
 */
import type { RequestOptions } from 'node:https';
import { sendPooled } from './keep-alive.js';
import { LeanHeaders, type RawHeaders } from './lean-headers.js';
import { http } from './node-http.js';

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
    this.statusText = http.STATUS_CODES[status] ?? '';
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

/**
 * A plain object of headers, told apart without naming `Headers`: Node defines fetch's classes
 * (Headers, Request, Response) as lazy globals, and the first read of one loads its whole bundled
 * fetch, which compiles its WebAssembly HTTP parser at load (several MiB, for nothing).
 */
function plainHeaders(headers: RequestInit['headers']): Record<string, string> | false {
  if (headers === undefined) return {};
  const proto: unknown = Object.getPrototypeOf(headers);
  return proto === Object.prototype || proto === null ? (headers as Record<string, string>) : false;
}

export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * A leanFetch whose short-path calls fail (`TypeError('fetch failed')`, cause an `ETIMEDOUT`
 * error) when the connection stays silent for `timeoutMs` — no headers, or then no body bytes: the
 * limit a client would otherwise set with `AbortSignal.timeout` per call, which costs a signal, a
 * timer and a finalizer registration each time (measurable at ten calls per turn); the socket's
 * idle timeout is one timer per connection, kept on Node's shared timer lists. Calls that go to the
 * global fetch get `AbortSignal.timeout` as before.
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
  // A Request object (anything but a string or URL) goes to fetch; see plainHeaders for why not `instanceof Request`.
  const plainInput = typeof input === 'string' || input instanceof URL;
  if (!plainInput || body === false || headers === false || !noRedirects) {
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
  let answer: Answer;
  try {
    answer = await exchange(
      url,
      {
        method: init.method ?? 'GET',
        headers,
        ...(signal ? { signal } : {}),
        ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
      },
      body,
    );
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    throw new TypeError('fetch failed', { cause: err });
  }
  const { status, headers: raw, bytes } = answer;
  if (init.redirect === 'error' && status >= 300 && status < 400 && raw.location) {
    // fetch refuses a redirect it was told not to follow (the body is read: the socket is reused).
    throw new TypeError('fetch failed', { cause: new Error(`unexpected redirect (HTTP ${status})`) });
  }
  return new LeanResponse(url, status, raw, bytes) as unknown as Response;
}

interface Answer {
  status: number;
  headers: RawHeaders;
  bytes: Buffer;
}

/**
 * One request, its answer read whole (answers are small): a caller that never reads the body (a
 * 429) cannot hold the connection, and the body can be read in any form afterwards. The connection
 * comes from Scout's keep-alive pool (keep-alive.ts) and goes back to it.
 */
function exchange(
  url: string,
  options: RequestOptions,
  body: string | Uint8Array | undefined,
): Promise<Answer> {
  return sendPooled({
    url,
    options,
    body,
    read: (res) =>
      new Promise((resolve, reject) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('error', reject);
        // After 'end', at 'close': by then the connection is back in the pool for the next call.
        res.on('close', () => {
          // Cut off mid-body (the server, the signal, the time limit): not a whole answer.
          if (!res.complete) reject(new Error('the connection closed before the answer ended'));
          else
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              bytes: parts.length === 1 ? parts[0]! : Buffer.concat(parts),
            });
        });
      }),
    prepare(req) {
      if (options.timeout === undefined) return;
      const limit = options.timeout;
      req.on('timeout', () =>
        req.destroy(
          Object.assign(new Error(`no answer from the server within ${limit} ms`), { code: 'ETIMEDOUT' }),
        ),
      );
    },
  });
}
