/**
 * The connection pools of Scout's own calls — model streams, search providers, the Slack Web API: one
 * keep-alive agent per protocol, so each provider host keeps a pooled connection that the rounds of
 * an agent turn and the next turns reuse, instead of a TCP (and, against a real provider, a TLS)
 * handshake before every call. fetch_url keeps its own request path (address checks, pinned lookup).
 *
 * Idle connections are closed after KEEP_ALIVE_IDLE_MS and are unref'd by Node's agent while idle,
 * so they never hold a finished process open.
 */
import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { loadHttps } from './lazy-https.js';
import { http } from './node-http.js';

/**
 * How long an idle connection stays in the pool. Long enough to outlast the gaps of an agent turn
 * (a search round with page reads of up to 10 s each) and a quick follow-up, shorter than the idle
 * limits of the front ends hosted providers sit behind (AWS ALB 60 s, nginx 75 s), so we close
 * first. A server that closes sooner (local ones often after 5 s) either says so in `Keep-Alive:
 * timeout=`, which Node's agent honours, or closes the idle connection, which then leaves the pool;
 * a request that meets a connection closed at that very moment is sent again (sendPooled).
 */
export const KEEP_ALIVE_IDLE_MS = 30_000;

const AGENT_OPTIONS = { keepAlive: true, timeout: KEEP_ALIVE_IDLE_MS, scheduling: 'lifo' } as const;

let plainAgent: Agent | undefined;
let tlsAgent: Agent | undefined;

/** The pool for `url`'s protocol (node:https loads with the first https:// call, see lazy-https.ts). */
async function agentFor(url: string): Promise<{ agent: Agent; request: typeof http.request }> {
  if (url.startsWith('https:')) {
    const https = await loadHttps();
    tlsAgent ??= new https.Agent(AGENT_OPTIONS);
    return { agent: tlsAgent, request: https.request };
  }
  plainAgent ??= new http.Agent(AGENT_OPTIONS);
  return { agent: plainAgent, request: http.request };
}

/**
 * Sends beyond the first when a reused connection turns out closed. Each retry takes another pooled
 * connection or a fresh one; a fresh connection's failure is final.
 */
const STALE_RETRIES = 2;

/** How a connection closed by the server while it lay idle fails the next request written to it. */
const STALE_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE']);

/** A request that failed on a reused connection before any answer: it never reached the server. */
class StaleConnectionError extends Error {
  constructor(readonly original: unknown) {
    super('a pooled connection was closed by the server');
  }
}

export interface PooledRequest<T> {
  url: string;
  options: RequestOptions;
  body: string | Uint8Array | undefined;
  /** Reads the answer; what it resolves to is the call's result, a rejection its failure. */
  read(response: IncomingMessage): Promise<T>;
  /** Runs on each request before it is sent (time limits). */
  prepare?(request: ClientRequest): void;
}

/**
 * One request over the pool. A request written to a reused connection the server had just closed
 * (its idle limit crossing our reuse) fails with a reset before any answer; it is sent again, as
 * Node's documentation advises (`request.reusedSocket`). Everything else fails as before.
 */
export async function sendPooled<T>(call: PooledRequest<T>): Promise<T> {
  const { agent, request } = await agentFor(call.url);
  for (let retry = 0; ; retry++) {
    try {
      return await exchange(call, request, agent);
    } catch (err) {
      if (!(err instanceof StaleConnectionError)) throw err;
      if (retry >= STALE_RETRIES) throw err.original;
    }
  }
}

function exchange<T>(call: PooledRequest<T>, request: typeof http.request, agent: Agent): Promise<T> {
  return new Promise((resolve, reject) => {
    let answered = false;
    // `timeout: 0` unless the call sets its own limit: the agent's idle timeout is for a connection
    // lying in the pool, and Node's agent acts on it only there (it destroys free sockets alone).
    // Left on while a request runs, every read and write re-arms it: a model stream re-armed it
    // for each of its hundreds of chunks, about 3 % of a busy bot's main thread while answers
    // stream (docs/performance.md). The agent gives the connection its idle timeout back when the
    // request is done and the connection returns to the pool.
    const req = request(call.url, { timeout: 0, ...call.options, agent }, (response) => {
      answered = true;
      call.read(response).then(resolve, reject);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      const stale =
        !answered && req.reusedSocket && !call.options.signal?.aborted && STALE_CODES.has(err.code ?? '');
      reject(stale ? new StaleConnectionError(err) : err);
    });
    call.prepare?.(req);
    req.end(call.body);
  });
}
