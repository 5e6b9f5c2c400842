/**
 * Reads a server's "wait this long" hint: `retry-after-ms`, `retry-after` (seconds or an HTTP date)
 * and Gemini's body `RetryInfo.retryDelay` ("20s"). The SDKs drop a body they cannot parse as an
 * object (Gemini sends a JSON array), so `withRetryHintFetch` copies the body hint into a header
 * before the SDK sees the response.
 */

/** Header our fetch wrapper adds when the hint was only in the body. */
export const BODY_HINT_HEADER = 'x-scout-retry-after-ms';

type HeaderSource = Headers | Record<string, string | string[] | undefined> | undefined | null;

function readHeader(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Milliseconds to wait, or undefined when the response gave no usable hint. */
export function parseRetryAfter(headers: HeaderSource, now: number = Date.now()): number | undefined {
  for (const name of ['retry-after-ms', BODY_HINT_HEADER]) {
    const raw = readHeader(headers, name);
    if (raw !== undefined && raw.trim() !== '' && Number.isFinite(Number(raw)))
      return Math.max(0, Number(raw));
  }
  const raw = readHeader(headers, 'retry-after')?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.round(Number(raw) * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Finds `retryDelay: "12.5s"` anywhere in a parsed error body (Google's RetryInfo detail). */
export function findBodyRetryDelay(body: unknown, depth = 0): number | undefined {
  if (depth > 6 || body === null || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  const delay = record['retryDelay'];
  if (typeof delay === 'string') {
    const match = /^(\d+(?:\.\d+)?)s$/.exec(delay.trim());
    if (match) return Math.round(Number(match[1]) * 1000);
  }
  for (const value of Object.values(record)) {
    const found = findBodyRetryDelay(value, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Wraps fetch so a 429 whose delay is only in the body carries it as a header the mappers read. */
export function withRetryHintFetch(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (
      response.status !== 429 ||
      response.headers.has('retry-after') ||
      response.headers.has('retry-after-ms')
    ) {
      return response;
    }
    const text = await response.text();
    let delay: number | undefined;
    try {
      delay = findBodyRetryDelay(JSON.parse(text));
    } catch {
      delay = undefined;
    }
    const headers = new Headers(response.headers);
    if (delay !== undefined) headers.set(BODY_HINT_HEADER, String(delay));
    return new Response(text, { status: response.status, statusText: response.statusText, headers });
  };
}
