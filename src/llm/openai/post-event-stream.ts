/**
 * One streamed POST to an OpenAI-compatible `/chat/completions`, over node:http with the SSE body
 * read by eventsource-parser. Measured against the openai SDK's own path (fetch, web streams, its
 * SSE reader) on the bench's 300-token stream at 50 concurrent streams: about half the CPU per
 * stream. Not undici: its WebAssembly parser is compiled on first use and a short-lived process
 * (`--once`) waits 60-70 ms at exit for V8's background tier-up of it (docs/performance.md). Failures are raised as the SDK's error classes, built the
 * way the SDK builds them, so map-openai-error.ts maps them exactly as before.
 */
import { createParser } from 'eventsource-parser';
import { APIConnectionError, APIError, APIUserAbortError } from 'openai/core/error';
import { LeanHeaders } from '../../http/lean-headers.js';
import { loadHttps } from '../../http/lazy-https.js';
import type { IncomingMessage } from 'node:http';
import { http } from '../../http/node-http.js';
import { BODY_HINT_HEADER, findBodyRetryDelay } from '../retry-after.js';

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

export interface EventStream {
  headers: Headers;
  /**
   * The `data` of each server-sent event, in order, until the body ends. `onChunk` runs for every
   * network chunk (keep-alive comments included): the server is alive.
   */
  events(onChunk: () => void): AsyncGenerator<string>;
}

/** `${base}/chat/completions`, joined the way the SDK joins it (a trailing slash is fine). */
export function completionsUrl(baseUrl: string | undefined): string {
  const base = baseUrl ?? DEFAULT_OPENAI_BASE_URL;
  return `${base}${base.endsWith('/') ? '' : '/'}chat/completions`;
}

export async function postEventStream(
  url: string,
  apiKey: string,
  body: string,
  signal: AbortSignal,
): Promise<EventStream> {
  let response: IncomingMessage;
  try {
    response = await send(url, apiKey, body, signal);
  } catch (err) {
    if (signal.aborted) throw new APIUserAbortError();
    throw new APIConnectionError({ cause: err instanceof Error ? err : new Error(String(err)) });
  }
  const headers = new LeanHeaders(response.headers) as unknown as Headers;
  const status = response.statusCode ?? 0;
  if (status < 200 || status > 299) {
    const text = await readText(response).catch((err: unknown) => String(err));
    const json = parseJson(text);
    // Gemini's 429 has its delay only in the body (RetryInfo): carry it as a header the mapper reads.
    if (status === 429 && !headers.has('retry-after') && !headers.has('retry-after-ms')) {
      const delay = findBodyRetryDelay(json);
      if (delay !== undefined) headers.set(BODY_HINT_HEADER, String(delay));
    }
    throw APIError.generate(
      status,
      json as object | undefined,
      json === undefined ? text : undefined,
      headers,
    );
  }
  const stream = response;
  return {
    headers,
    async *events(onChunk) {
      const ready: string[] = [];
      const parser = createParser({ onEvent: (event) => ready.push(event.data) });
      // Streaming decode: a UTF-8 character may be split across network chunks.
      const decoder = new TextDecoder();
      try {
        for await (const bytes of stream) {
          onChunk();
          parser.feed(decoder.decode(bytes as Uint8Array, { stream: true }));
          // Copied out first: the consumer may stop (return) in the middle.
          const batch = ready.splice(0);
          for (const data of batch) yield data;
        }
      } finally {
        // Stopped early ([DONE], an error chunk, the caller): release the connection.
        if (!stream.destroyed) stream.destroy();
      }
    },
  };
}

async function send(
  url: string,
  apiKey: string,
  body: string,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const request = url.startsWith('https:') ? (await loadHttps()).request : http.request;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': 'application/json',
          accept: 'text/event-stream',
          'content-length': Buffer.byteLength(body),
        },
        signal,
      },
      resolve,
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function readText(stream: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
