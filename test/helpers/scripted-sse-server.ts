/**
 * The engine behind `fake-openai-server.ts` and `fake-anthropic-server.ts`: a real HTTP server on
 * 127.0.0.1 (random port) that answers each request with the next scripted response and records
 * every request. Use the provider-specific wrappers rather than this file directly.
 *
 * A script is one of:
 * - an array of chunks, or `{ chunks, delayMs?, chunkDelayMs?, dropAfter?, headers? }`: streamed as
 *   SSE (strings are written raw, e.g. ": keep-alive\n\n"); `dropAfter: n` destroys the socket after
 *   n chunks (a server dying mid-stream);
 * - `{ status, body?, headers?, delayMs? }`: an error (or any plain JSON) response;
 * - `{ json, status?, headers?, delayMs? }`: a non-streaming JSON response;
 * - `{ hang: true }`: accepts the request and never answers.
 * `delayMs` waits before the first byte; `chunkDelayMs` between chunks.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface StreamScript {
  chunks: unknown[];
  delayMs?: number;
  chunkDelayMs?: number;
  /** Destroy the connection after this many chunks (no terminator). */
  dropAfter?: number;
  headers?: Record<string, string>;
  /** Writes the chunks before `index`, then waits for `until` (an event, not a delay) before the rest. */
  holdAt?: { index: number; until: Promise<unknown> };
  /** Called when the response has ended (the last chunk and the terminator written). */
  onEnd?: () => void;
  /** Called after each chunk is written, with its index. */
  onWrite?: (index: number) => void;
}
export interface ErrorScript {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}
export interface JsonScript {
  json: unknown;
  status?: number;
  headers?: Record<string, string>;
  delayMs?: number;
}
export interface HangScript {
  hang: true;
}
export type Script = StreamScript | ErrorScript | JsonScript | HangScript | unknown[];

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body (or the raw text when it is not JSON). */
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are read freely in assertions
  body: any;
  /** Milliseconds since the server started, to check retry delays. */
  at: number;
}

/** Decides a response when the queue is empty: a script, or a function of the request body. */
// biome-ignore lint/suspicious/noExplicitAny: the body is whatever the client sent
export type Fallback = Script | ((body: any, request: RecordedRequest) => Script);

export interface ScriptedServer {
  /** `http://127.0.0.1:<port>` (no path). */
  readonly origin: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** TCP connections accepted so far (keep-alive tests: one per provider host, reused). */
  readonly connections: number;
  /** Queue scripts, answered in order, one per request. */
  enqueue(...scripts: Script[]): void;
  /** Used when the queue is empty; unset → a 400 saying the queue ran out. */
  fallback: Fallback | undefined;
  /** Scripts not yet consumed. */
  pending(): number;
  close(): Promise<void>;
}

export interface ScriptedServerOptions {
  /** Name used in the "queue is empty" error. */
  name: string;
  /** Paths answered (POST); others get 404. */
  paths: string[];
  /** Formats one chunk object as an SSE event. */
  formatEvent(chunk: unknown): string;
  /** Written after the last chunk (OpenAI: "data: [DONE]\n\n"). */
  terminator?: string;
  /** Body for the "queue is empty" error in the provider's error shape. */
  emptyQueueBody(message: string): unknown;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The whole request body as text (the fakes read JSON bodies freely in assertions). */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      data += chunk;
    });
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
}

export async function startScriptedServer(options: ScriptedServerOptions): Promise<ScriptedServer> {
  const queue: Script[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let accepted = 0;
  const started = Date.now();
  let closed = false;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const text = await readBody(req);
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method !== 'POST' || !options.paths.includes(path)) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `no route ${path}` } }));
      return;
    }
    const recorded: RecordedRequest = {
      method: req.method,
      path,
      headers: { ...req.headers },
      body,
      at: Date.now() - started,
    };
    requests.push(recorded);
    let script = queue.shift();
    if (!script && server.fallback) {
      script = typeof server.fallback === 'function' ? server.fallback(body, recorded) : server.fallback;
    }
    if (!script) {
      const message = `${options.name}: script queue is empty (request ${requests.length})`;
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify(options.emptyQueueBody(message)));
      return;
    }
    await play(script, res);
  };

  const play = async (script: Script, res: ServerResponse) => {
    if ('hang' in script && !Array.isArray(script)) return; // never answer; close() destroys the socket
    const stream: StreamScript | undefined = Array.isArray(script)
      ? { chunks: script }
      : 'chunks' in script
        ? script
        : undefined;
    if (!stream) {
      const plain = script as ErrorScript | JsonScript;
      if (plain.delayMs) await sleep(plain.delayMs);
      const status = 'json' in plain ? (plain.status ?? 200) : (plain as ErrorScript).status;
      const payload = 'json' in plain ? plain.json : (plain as ErrorScript).body;
      const bodyText = typeof payload === 'string' ? payload : JSON.stringify(payload ?? {});
      res.writeHead(status, { 'content-type': 'application/json', ...plain.headers }).end(bodyText);
      return;
    }
    if (stream.delayMs) await sleep(stream.delayMs);
    if (closed) return;
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      ...stream.headers,
    });
    res.flushHeaders();
    for (const [index, chunk] of stream.chunks.entries()) {
      if (stream.holdAt?.index === index) await stream.holdAt.until;
      if (index > 0 && stream.chunkDelayMs) await sleep(stream.chunkDelayMs);
      if (stream.dropAfter !== undefined && index >= stream.dropAfter) {
        res.socket?.destroy();
        return;
      }
      if (closed || res.destroyed) return;
      res.write(typeof chunk === 'string' ? chunk : options.formatEvent(chunk));
      stream.onWrite?.(index);
    }
    if (stream.dropAfter !== undefined && stream.dropAfter >= stream.chunks.length) {
      res.socket?.destroy();
      return;
    }
    res.end(options.terminator ?? '');
    stream.onEnd?.();
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  http.on('connection', (socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;

  const server: ScriptedServer = {
    origin: `http://127.0.0.1:${port}`,
    requests,
    get connections() {
      return accepted;
    },
    fallback: undefined,
    enqueue: (...scripts) => {
      queue.push(...scripts);
    },
    pending: () => queue.length,
    close: async () => {
      closed = true;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
  return server;
}
