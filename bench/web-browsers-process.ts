/**
 * Child-process entry for scenario 18's browsers (forked by web-browsers.ts): N people on the web
 * chat, each a plain HTTP client from its own loopback address (127.0.x.y, as N machines would come
 * from N addresses: the surface's per-address limits apply to each), with its own session cookie, one
 * conversation and that conversation's event stream read with eventsource-parser, as EventSource
 * would. Their CPU stays out of Scout's process, as browsers' would.
 *
 * IPC: `{ id, op, ...args }` → `{ id, result?, error? }`; ops in `Request` below.
 */
import { type IncomingMessage, request as httpRequest } from 'node:http';
import { createParser } from 'eventsource-parser';
import { epochNow } from './fakes/fake-llm.js';
import { serveRpc } from './child-rpc.js';

type Request =
  | { id: number; op: 'prepare'; origin: string; count: number }
  | { id: number; op: 'connect' }
  | { id: number; op: 'send'; prefix: string; question: string }
  | { id: number; op: 'wait'; timeoutMs: number }
  | { id: number; op: 'observations' }
  | { id: number; op: 'disconnect' }
  | { id: number; op: 'close' };

/** Loopback source address of session `i`: 127.0.1.1, 127.0.1.2, … (all of 127/8 is loopback on Linux). */
const localAddress = (i: number) => `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`;

interface Reply {
  status: number;
  text: string;
}

class BrowserSession {
  #cookie = '';
  #csrf = '';
  conversation = '';
  #stream: IncomingMessage | undefined;
  #abort: (() => void) | undefined;
  #turnId: string | undefined;
  #answer = '';
  /** The running turn ended (its done patch, or a turn event sent whole once it had ended). */
  done = false;
  /** The turn's tag (what the fake model keys its records by). */
  tag = '';
  /** Per turn tag: each event that changed the answer, as [epoch ms received, answer length after it]. */
  readonly observed = new Map<string, Array<[number, number]>>();
  error: string | undefined;
  #wake: (() => void) | undefined;
  #connected: (() => void) | undefined;

  constructor(
    private readonly origin: URL,
    private readonly address: string,
  ) {}

  #request(method: string, path: string, body?: unknown): Promise<Reply> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise<Reply>((resolve, reject) => {
      const req = httpRequest(
        {
          host: this.origin.hostname,
          port: this.origin.port,
          method,
          path,
          localAddress: this.address,
          headers: {
            ...(this.#cookie ? { cookie: this.#cookie } : {}),
            ...(method !== 'GET' ? { 'x-csrf-token': this.#csrf } : {}),
            ...(payload ? { 'content-type': 'application/json' } : {}),
          },
        },
        (res) => {
          for (const line of res.headers['set-cookie'] ?? []) {
            const pair = line.split(';')[0];
            if (pair?.startsWith('scout_session=')) this.#cookie = pair;
          }
          const parts: Buffer[] = [];
          res.on('data', (c: Buffer) => parts.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString() }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  async #json(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const reply = await this.#request(method, path, body);
    if (reply.status >= 300)
      throw new Error(`${method} ${path}: ${reply.status} ${reply.text.slice(0, 200)}`);
    return JSON.parse(reply.text) as Record<string, unknown>;
  }

  /** A user (the session cookie and its CSRF token) and a new conversation. */
  async prepare(): Promise<void> {
    const session = await this.#json('GET', '/api/session');
    this.#csrf = String(session.csrf);
    this.conversation = String((await this.#json('POST', '/api/conversations', {})).id);
  }

  /** Opens the conversation's event stream; resolves at its first event (the snapshot). */
  connect(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#connected = resolve;
      const parser = createParser({ onEvent: (e) => this.#onEvent(e.event ?? 'message', e.data) });
      const req = httpRequest(
        {
          host: this.origin.hostname,
          port: this.origin.port,
          path: `/api/conversations/${this.conversation}/events`,
          localAddress: this.address,
          headers: { cookie: this.#cookie, accept: 'text/event-stream' },
        },
        (res) => {
          if (res.statusCode !== 200) {
            reject(new Error(`events: HTTP ${res.statusCode}`));
            res.resume();
            return;
          }
          this.#stream = res;
          res.setEncoding('utf8');
          res.on('data', (text: string) => parser.feed(text));
          res.on('error', () => undefined);
        },
      );
      req.on('error', (err) => {
        if (!this.#stream) reject(err);
      });
      this.#abort = () => req.destroy();
      req.end();
    });
  }

  #onEvent(event: string, data: string): void {
    const at = epochNow();
    if (event === 'snapshot') {
      this.#connected?.();
      this.#connected = undefined;
      return;
    }
    if (event !== 'turn' && event !== 'patch') return;
    const body = JSON.parse(data) as {
      turn?: { id: string; answer: string; done: boolean };
      turnId?: string;
      append?: string;
      answer?: string;
      done?: boolean;
    };
    const before = this.#answer;
    if (event === 'turn' && body.turn) {
      this.#turnId = body.turn.id;
      this.#answer = body.turn.answer;
      if (body.turn.done) this.done = true;
    } else if (body.turnId === this.#turnId) {
      if (body.append !== undefined) this.#answer += body.append;
      if (body.answer !== undefined) this.#answer = body.answer;
      if (body.done) this.done = true;
    }
    if (this.#answer !== before) {
      const list = this.observed.get(this.tag) ?? [];
      if (list.length === 0) this.observed.set(this.tag, list);
      list.push([at, this.#answer.length]);
    }
    if (this.done) this.#wake?.();
  }

  async send(tag: string, question: string): Promise<void> {
    this.tag = tag;
    this.done = false;
    this.#answer = '';
    this.#turnId = undefined;
    const reply = await this.#request('POST', `/api/conversations/${this.conversation}/messages`, {
      text: `${tag} ${question}`,
    });
    if (reply.status !== 202) {
      this.error = `message: HTTP ${reply.status} ${reply.text.slice(0, 120)}`;
      this.done = true;
    }
  }

  ended(): Promise<void> {
    if (this.done) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
  }

  get answer(): string {
    return this.#answer;
  }

  disconnect(): void {
    this.#abort?.();
    this.#stream = undefined;
  }
}

let sessions: BrowserSession[] = [];

async function answer(request: Request): Promise<unknown> {
  switch (request.op) {
    case 'prepare': {
      for (const s of sessions) s.disconnect();
      const origin = new URL(request.origin);
      sessions = Array.from({ length: request.count }, (_, i) => new BrowserSession(origin, localAddress(i)));
      await Promise.all(sessions.map((s) => s.prepare()));
      return null;
    }
    case 'connect':
      await Promise.all(sessions.map((s) => s.connect()));
      return null;
    case 'send':
      await Promise.all(sessions.map((s, i) => s.send(`${request.prefix}-${i}`, request.question)));
      return null;
    case 'wait': {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, request.timeoutMs);
      });
      await Promise.race([Promise.all(sessions.map((s) => s.ended())), timeout]);
      clearTimeout(timer);
      return sessions.map((s) => ({
        tag: s.tag,
        done: s.done,
        answerChars: s.answer.length,
        answerEnd: s.answer.slice(-12),
        ...(s.error ? { error: s.error } : {}),
      }));
    }
    case 'observations': {
      const out: Record<string, Array<[number, number]>> = {};
      for (const s of sessions) for (const [tag, list] of s.observed) out[tag] = list;
      for (const s of sessions) s.observed.clear();
      return out;
    }
    case 'disconnect':
      for (const s of sessions) s.disconnect();
      return null;
    case 'close':
      for (const s of sessions) s.disconnect();
      setImmediate(() => process.exit(0));
      return null;
  }
}

serveRpc(answer);
