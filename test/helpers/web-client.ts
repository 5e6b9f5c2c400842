// biome-ignore-all lint/suspicious/noExplicitAny: the API's JSON is read as the page reads it, untyped
/**
 * A browser's side of the web chat's API, for in-process tests: a cookie jar, the CSRF header on
 * changes, and an event stream read with eventsource-parser (as EventSource would read it).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createParser } from 'eventsource-parser';

/** A stand-in for the built page: the API tests need only that index.html and login.html exist. */
export function stubAssetsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'scout-web-assets-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Scout</title>');
  writeFileSync(
    join(dir, 'login.html'),
    '<form method="post"><input name="csrf" value="{{csrf}}"><p>{{error}}</p></form>',
  );
  writeFileSync(join(dir, 'app.js'), 'console.log("scout")');
  return dir;
}

export interface StreamedEvent {
  id: string | undefined;
  event: string;
  data: any;
}

export class WebClient {
  cookies = new Map<string, string>();
  csrf = '';

  constructor(
    readonly origin: string,
    readonly headers: Record<string, string> = {},
  ) {}

  #cookieHeader(): Record<string, string> {
    if (this.cookies.size === 0) return {};
    return { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
  }

  #keep(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair?.indexOf('=') ?? -1;
      if (!pair || eq < 0) continue;
      const value = pair.slice(eq + 1);
      if (/Max-Age=0/i.test(line)) this.cookies.delete(pair.slice(0, eq));
      else this.cookies.set(pair.slice(0, eq), value);
    }
  }

  async request(
    method: string,
    path: string,
    body?: unknown,
    extra: Record<string, string> = {},
  ): Promise<Response> {
    const res = await fetch(`${this.origin}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        ...this.headers,
        ...this.#cookieHeader(),
        ...(method !== 'GET' ? { 'x-csrf-token': this.csrf } : {}),
        ...(body !== undefined && !(body instanceof Uint8Array)
          ? { 'content-type': 'application/json' }
          : {}),
        ...extra,
      },
      ...(body === undefined ? {} : { body: body instanceof Uint8Array ? body : JSON.stringify(body) }),
    });
    this.#keep(res);
    return res;
  }

  async json(method: string, path: string, body?: unknown): Promise<any> {
    const res = await this.request(method, path, body);
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  }

  async login(): Promise<any> {
    const session = await this.json('GET', '/api/session');
    this.csrf = session.csrf;
    return session;
  }

  /** Opens a conversation's event stream; events arrive in `events` and wake `next`. */
  async stream(conversation: string, lastEventId?: string): Promise<EventReader> {
    const controller = new AbortController();
    const res = await fetch(`${this.origin}/api/conversations/${conversation}/events`, {
      headers: {
        ...this.headers,
        ...this.#cookieHeader(),
        ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
      },
      signal: controller.signal,
    });
    if (!res.ok || !res.body) throw new Error(`events: ${res.status}`);
    return new EventReader(res.body, controller);
  }
}

export class EventReader {
  readonly events: StreamedEvent[] = [];
  #wake: (() => void) | undefined;
  #ended = false;

  constructor(
    body: ReadableStream<Uint8Array>,
    private readonly controller: AbortController,
  ) {
    const parser = createParser({
      onEvent: (e) => {
        this.events.push({ id: e.id, event: e.event ?? 'message', data: JSON.parse(e.data) });
        this.#wake?.();
      },
    });
    void (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of body) parser.feed(decoder.decode(chunk, { stream: true }));
      } catch {
        // Aborted by close().
      } finally {
        this.#ended = true;
        this.#wake?.();
      }
    })();
  }

  /** Waits until an event satisfies `test` (searching those already seen first). */
  async until(test: (e: StreamedEvent) => boolean, timeoutMs = 10_000): Promise<StreamedEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find(test);
      if (found) return found;
      if (this.#ended)
        throw new Error(`stream ended without the event; saw ${this.events.map((e) => e.event).join(',')}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `no such event; saw ${this.events.map((e) => e.event).join(',')}; last: ${JSON.stringify(this.events.at(-1)?.data).slice(0, 600)}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  close(): void {
    this.controller.abort();
  }
}

/** The turn as the page would hold it after applying every turn/patch event seen so far. */
export function foldTurn(events: StreamedEvent[]): any {
  let turn: any;
  for (const e of events) {
    if (e.event === 'snapshot') turn = e.data.turn ?? turn;
    if (e.event === 'turn') turn = structuredClone(e.data.turn);
    if (e.event === 'patch' && turn && e.data.turnId === turn.id) {
      const { turnId: _id, steps, append, ...rest } = e.data;
      for (const step of steps ?? []) {
        const i = turn.steps.findIndex((s: any) => s.id === step.id);
        if (i >= 0) turn.steps[i] = step;
        else turn.steps.push(step);
      }
      if (append) turn.answer += append;
      Object.assign(turn, rest);
    }
  }
  return turn;
}

/** The event that ends a turn: its last patch, or a turn event sent whole once it had ended. */
export function turnDone(e: StreamedEvent): boolean {
  return (e.event === 'patch' && e.data.done === true) || (e.event === 'turn' && e.data.turn.done === true);
}
