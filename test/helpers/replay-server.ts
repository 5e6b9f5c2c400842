/**
 * Serves a recorded provider exchange from `../shared/replays` on 127.0.0.1 (random port): each
 * POST gets the next recorded response of the chosen side (`tool` then, if asked, `answer`),
 * byte for byte — status, headers and SSE body as the provider sent them. Once the recording runs
 * out the last response repeats (a provider that keeps answering 429). Every request is recorded.
 */
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { readBody } from './scripted-sse-server.js';

export interface RecordedResponse {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

export interface Replay {
  id: string;
  provider: string;
  model: string;
  feature: string;
  question?: string;
  tool: RecordedResponse[];
  answer?: RecordedResponse[];
}

export interface ReplayServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are read freely in assertions
  readonly requests: any[];
  close(): Promise<void>;
}

/** Serves `responses` in order (the last one repeating), whatever the path. */
export async function startReplayServer(responses: RecordedResponse[]): Promise<ReplayServer> {
  // biome-ignore lint/suspicious/noExplicitAny: see ReplayServer.requests
  const requests: any[] = [];
  const sockets = new Set<Socket>();
  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    let body: unknown = raw;
    try {
      body = JSON.parse(raw);
    } catch {
      // kept as text: a body that is not JSON is itself worth asserting on
    }
    requests.push(body);
    const response = responses[Math.min(requests.length - 1, responses.length - 1)];
    if (!response) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('replay has no responses');
      return;
    }
    res.writeHead(response.status, response.headers ?? {}).end(response.body);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
