/**
 * One streamed POST to an OpenAI-compatible `/chat/completions`, over node:http with the SSE body
 * read by eventsource-parser. Measured against the openai SDK's own path (fetch, web streams, its
 * SSE reader) on the bench's 300-token stream at 50 concurrent streams: about half the CPU per
 * stream. Not undici: its WebAssembly parser is compiled on first use and a short-lived process
 * (`--once`) waits 60-70 ms at exit for V8's background tier-up of it (docs/performance.md). Failures are raised as the SDK's error classes, built the
 * way the SDK builds them, so map-openai-error.ts maps them exactly as before. Connections come
 * from Scout's keep-alive pool (src/http/keep-alive.ts): a stream read to [DONE] hands its
 * connection back for the next call; one stopped early is cut, so the server stops generating.
 */
import { createParser } from 'eventsource-parser';
import { APIConnectionError, APIError, APIUserAbortError } from 'openai/core/error';
import { LeanHeaders } from '../../http/lean-headers.js';
import type { IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { finished } from 'node:stream';
import { sendPooled } from '../../http/keep-alive.js';
import { BODY_HINT_HEADER, findBodyRetryDelay } from '../retry-after.js';
import { type Held, type HoldForWindow, holdForWindow } from './batch-window.js';

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * After `[DONE]` only the end of the HTTP body should follow (the chunked terminator, usually in the
 * same packet). It is read so that the connection goes back to the pool; a server that sends more
 * than this, or not within this time, loses the connection instead.
 */
const DRAIN_MAX_BYTES = 64 * 1024;
const DRAIN_MAX_MS = 250;

export interface EventStream {
  headers: Headers;
  /**
   * The `data` of each server-sent event, in order, until the body ends, in batches (the events one
   * network chunk completed, or several: see `gather`). `onChunk` runs for every network chunk
   * (keep-alive comments included): the server is alive.
   */
  events(onChunk: () => void): EventBatchStream;
}

export interface EventBatchStream extends AsyncIterable<string[]> {
  /**
   * From now on, events that arrive while the consumer waits are held until the batch window's
   * next tick (batch-window.ts) and go on with those that follow them: one batch per window, not
   * one per token. `[DONE]`, the body's end and a broken connection are never held (an error sent
   * as an event is data: it waits at most one window). The driver calls it once the stream's first
   * part has gone on, so the first token is not delayed. Calling it again changes nothing.
   */
  gather(): void;
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
  hold: HoldForWindow = holdForWindow,
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
  return {
    headers,
    events: (onChunk) => new EventBatches(response, signal, onChunk, hold),
  };
}

/**
 * The events of one response body, a batch per network chunk that completed any (once gathering,
 * per batch window: what arrived while the consumer waited). Read from the
 * socket's `data` events, not the stream's async iterator: at 50 tokens/s each chunk carries one
 * event, and the iterator plus a generator per event allocated about a third of a streamed answer's
 * memory (bench scenario 6, a sampling heap profile). The body is paused while a batch waits for the
 * consumer, so a slow consumer holds back the server as before.
 */
class EventBatches implements AsyncIterator<string[]>, EventBatchStream, Held {
  private queued: string[] = [];
  private waiting:
    | { resolve(result: IteratorResult<string[]>): void; reject(err: unknown): void }
    | undefined;
  private ended = false;
  private failure: { error: unknown } | undefined;
  /** `[DONE]` was read: a consumer that stops now leaves a connection worth keeping. */
  private done = false;
  /** Events that arrive while the consumer waits are held for the batch window (`gather`). */
  private gathering = false;
  private readonly parser = createParser({
    onEvent: (event) => {
      if (event.data.startsWith('[DONE]')) this.done = true;
      this.queued.push(event.data);
    },
  });
  // Streaming decode: a UTF-8 character may be split across network chunks. StringDecoder, not
  // TextDecoder: the same replacement of bad bytes, without TextDecoder's per-stream label lookup
  // and per-chunk option handling (about 1.5 ms of CPU per streamed answer in bench scenario 6).
  private readonly decoder = new StringDecoder('utf8');
  constructor(
    private readonly stream: IncomingMessage,
    private readonly signal: AbortSignal,
    private readonly onChunk: () => void,
    private readonly hold: HoldForWindow,
  ) {
    stream.on('data', this.onData);
    // finished() tells an end from a cut (a reset, an abort, a close before the end). It stays
    // after the consumer stops: its error listener keeps a late socket error from going unhandled.
    finished(stream, (err) => {
      if (err) this.failure = { error: err };
      else this.ended = true;
      this.settle();
    });
  }

  private readonly onData = (bytes: Buffer): void => {
    this.onChunk();
    this.parser.feed(this.decoder.write(bytes));
    if (this.queued.length === 0) return;
    if (!this.waiting) this.stream.pause();
    // The last events are never held: the answer's end shows at once.
    else if (this.gathering && !this.done) this.hold(this);
    else this.settle();
  };

  [Symbol.asyncIterator](): AsyncIterator<string[]> {
    return this;
  }

  gather(): void {
    this.gathering = true;
  }

  /** The batch window's tick: what was held goes on (unless the consumer took it meanwhile). */
  flush(): void {
    this.settle();
  }

  /** Hands the waiting consumer what there is: a batch, the end, or the failure. */
  private settle(): void {
    const waiting = this.waiting;
    if (!waiting) return;
    if (this.queued.length > 0) {
      this.waiting = undefined;
      waiting.resolve({ done: false, value: this.take() });
    } else if (this.failure) {
      this.waiting = undefined;
      waiting.reject(this.failure.error);
    } else if (this.ended) {
      this.waiting = undefined;
      waiting.resolve({ done: true, value: undefined });
    }
  }

  private take(): string[] {
    const batch = this.queued;
    this.queued = [];
    return batch;
  }

  next(): Promise<IteratorResult<string[]>> {
    if (this.queued.length > 0) return Promise.resolve({ done: false, value: this.take() });
    if (this.failure) return Promise.reject(this.failure.error);
    if (this.ended) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.stream.resume();
    });
  }

  /** The consumer stopped: after [DONE] the connection is kept (read to its end), otherwise cut. */
  async return(): Promise<IteratorResult<string[]>> {
    const stream = this.stream;
    stream.off('data', this.onData);
    if (stream.readableEnded || stream.destroyed) {
      // Read to its end (the connection is back in the pool), or already cut.
    } else if (this.done && !this.signal.aborted) {
      // Awaited: the call's next request (the agent's next round) finds the connection free.
      await drainToEnd(stream);
    } else {
      // Stopped before the end (an error chunk, the caller, an abort): the server must stop too.
      stream.destroy();
    }
    return { done: true, value: undefined };
  }
}

/**
 * Reads what is left of a finished stream's body (bounded) so that its connection goes back to the
 * pool; resolves once the response is closed (by then the pool has the connection). A Stop meanwhile
 * still cuts it at once: the request keeps the caller's signal until the body has ended.
 */
function drainToEnd(stream: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    let bytes = 0;
    const cut = setTimeout(() => stream.destroy(), DRAIN_MAX_MS);
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > DRAIN_MAX_BYTES) stream.destroy();
    });
    stream.once('close', () => {
      clearTimeout(cut);
      resolve();
    });
    // A reset now costs the connection, not the answer, which is complete.
    stream.on('error', () => {});
    stream.resume();
  });
}

function send(url: string, apiKey: string, body: string, signal: AbortSignal): Promise<IncomingMessage> {
  return sendPooled({
    url,
    options: {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'content-length': Buffer.byteLength(body),
      },
      signal,
    },
    body,
    // The body is read by the caller (an error's text, or the event stream).
    read: async (response) => response,
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
