/**
 * The open conversation's event stream (PROTOCOL.md › Events). One EventSource per open
 * conversation; the browser reconnects it by itself with Last-Event-ID, and the server replays or
 * sends a snapshot. When the server closed it for good (an error status, e.g. logged out), it is
 * reopened after a pause, once the session is known to be alive.
 */
import { api } from './api.js';
import type { Entry, Turn, TurnPatch } from './protocol.js';

export interface StreamHandlers {
  snapshot(entries: Entry[], turn: Turn | null): void;
  user(entry: Entry): void;
  turn(turn: Turn): void;
  patch(patch: TurnPatch): void;
  reply(entry: Entry): void;
  conversations(): void;
  /** false while the stream is down (the page says it is reconnecting). */
  connected(up: boolean): void;
}

export interface Stream {
  close(): void;
}

export function openStream(conversationId: string, handlers: StreamHandlers): Stream {
  let source: EventSource | null = null;
  let closed = false;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let delay = 1000;

  const on = <T>(name: string, handle: (data: T) => void) => {
    source?.addEventListener(name, (event) => {
      let data: T;
      try {
        data = JSON.parse((event as MessageEvent<string>).data) as T;
      } catch {
        console.warn(`Scout: unreadable ${name} event`);
        return;
      }
      handle(data);
    });
  };

  const connect = () => {
    source = new EventSource(`/api/conversations/${encodeURIComponent(conversationId)}/events`);
    source.addEventListener('open', () => {
      delay = 1000;
      handlers.connected(true);
    });
    source.addEventListener('error', () => {
      if (closed || !source) return;
      handlers.connected(false);
      if (source.readyState !== EventSource.CLOSED) return; // the browser is retrying by itself
      source = null;
      // Closed for good: ask the API (a 401 goes to the login page), then try again, backing off.
      retry = setTimeout(() => {
        api
          .session()
          .catch(() => undefined)
          .finally(() => {
            if (!closed) connect();
          });
      }, delay);
      delay = Math.min(delay * 2, 30_000);
    });
    on<{ entries: Entry[]; turn: Turn | null }>('snapshot', (d) =>
      handlers.snapshot(d.entries ?? [], d.turn ?? null),
    );
    on<{ entry: Entry }>('user', (d) => handlers.user(d.entry));
    on<{ turn: Turn }>('turn', (d) => handlers.turn(d.turn));
    on<TurnPatch>('patch', (d) => handlers.patch(d));
    on<{ entry: Entry }>('reply', (d) => handlers.reply(d.entry));
    on<unknown>('conversations', () => handlers.conversations());
  };

  connect();
  return {
    close() {
      closed = true;
      clearTimeout(retry);
      source?.close();
      source = null;
    },
  };
}
