/**
 * One browser's Server-Sent Events stream. A slow or vanished browser must never hold Scout's memory:
 * when the socket's unsent bytes pass a bound, events stop being queued for it; once it drains, it is
 * sent one snapshot of where things stand (the page replaces what it shows) and events resume.
 */
import type { ServerResponse } from 'node:http';

/** Unsent bytes one connection may hold before it falls behind and waits for a snapshot. */
export const MAX_PENDING_BYTES = 64 * 1024;
/** A comment line this often keeps proxies and load balancers from closing an idle stream. */
export const PING_MS = 15_000;

export interface StreamEvent {
  id: string;
  event: string;
  /** JSON text. */
  data: string;
}

export function formatEvent(event: StreamEvent): string {
  // JSON text has no raw newline, so one data line carries it.
  return `id: ${event.id}\nevent: ${event.event}\ndata: ${event.data}\n\n`;
}

export class EventStream {
  #behind = false;
  #closed = false;
  readonly #ping: NodeJS.Timeout;

  constructor(
    private readonly res: ServerResponse,
    /** Called when the browser caught up after falling behind: send it a snapshot. */
    private readonly onCaughtUp: (stream: EventStream) => void,
    onClose: (stream: EventStream) => void,
  ) {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store, no-transform',
      // nginx: pass each event on at once instead of buffering the response.
      'X-Accel-Buffering': 'no',
      Connection: 'keep-alive',
    });
    // The browser waits this long before reconnecting after a drop.
    res.write('retry: 1000\n\n');
    this.#ping = setInterval(() => this.#write(': ping\n\n'), PING_MS);
    this.#ping.unref();
    res.on('drain', () => {
      if (!this.#behind || this.#closed) return;
      this.#behind = false;
      this.onCaughtUp(this);
    });
    res.on('close', () => {
      this.#closed = true;
      clearInterval(this.#ping);
      onClose(this);
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  send(event: StreamEvent): void {
    if (this.#behind) return;
    this.#write(formatEvent(event));
  }

  #write(text: string): void {
    if (this.#closed) return;
    if (this.res.writableLength > MAX_PENDING_BYTES) {
      // Dropped, not queued: the snapshot on 'drain' says everything these events would have.
      this.#behind = true;
      return;
    }
    this.res.write(text);
  }

  close(): void {
    if (this.#closed) return;
    this.res.end();
  }
}
