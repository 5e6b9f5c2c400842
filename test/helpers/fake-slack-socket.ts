/**
 * A fake Slack Socket Mode endpoint on loopback, used with the fake Web API (`fake-slack-api.ts`):
 * `apps.connections.open` (called with the app-level `xapp-…` token) hands out a one-time
 * `ws://127.0.0.1:<port>/link/?ticket=…` URL, and this WebSocket server speaks Slack's side of the
 * protocol to the real `@slack/socket-mode` client inside Bolt's `SocketModeReceiver`:
 * `hello` on connect, envelopes (`events_api`, `slash_commands`, `interactive`) pushed by the test,
 * the client's acks (`{ envelope_id, payload }`) recorded, pings answered (ws answers them with pongs),
 * and `disconnect` messages that make the client reconnect with a new ticket.
 * Shapes as Slack sends them: https://docs.slack.dev/apis/events-api/using-socket-mode
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import type { FakeSlackApi } from './fake-slack-api.js';

const APP_ID = 'A00FAKEAPP01';

export interface SocketAck {
  envelope_id: string;
  /** What the client answered inside the ack (empty for a plain ack). */
  payload: Record<string, unknown> | undefined;
  at: number;
}

export interface EnvelopeOptions {
  /** Slack's redelivery counter (0 for the first delivery). */
  retryAttempt?: number;
  /** Why Slack redelivered (`timeout`, …); empty on the first delivery. */
  retryReason?: string;
  envelopeId?: string;
}

export interface FakeSlackSocket {
  /** Tickets handed out by apps.connections.open, in order. */
  readonly tickets: string[];
  /** Every WebSocket connection the client opened (ever), and how many are open now. */
  readonly connectionCount: number;
  readonly openCount: number;
  /** Every non-ack message the client sent (Slack ignores them; tests assert there are none). */
  readonly unexpected: unknown[];
  readonly acks: SocketAck[];
  /** Pings the client sent (the client pings every clientPingTimeout / 3). */
  readonly pings: number;
  /** Sends an Events API envelope; `payload` is the event callback (`{ team_id, event_id, event, … }`). */
  sendEvent(payload: Record<string, unknown>, options?: EnvelopeOptions): string;
  /** Sends a slash command envelope; `payload` is the command's fields as JSON (not form-encoded). */
  sendSlashCommand(payload: Record<string, unknown>, options?: EnvelopeOptions): string;
  /** Sends an interactivity envelope (`block_actions`, `view_submission` …). */
  sendInteractive(payload: Record<string, unknown>, options?: EnvelopeOptions): string;
  /** Resolves with the client's ack of an envelope; rejects after `timeoutMs`. */
  waitForAck(envelopeId: string, timeoutMs?: number): Promise<SocketAck>;
  /** Resolves when a connection is open and has been sent `hello` (after `minCount` connections in all). */
  waitForConnection(minCount?: number, timeoutMs?: number): Promise<void>;
  /** Resolves when no connection is open. */
  waitForNoConnection(timeoutMs?: number): Promise<void>;
  /** Sends Slack's `disconnect` message on every open connection (the client closes and reconnects). */
  disconnect(reason?: 'refresh_requested' | 'warning' | 'link_disabled'): void;
  close(): Promise<void>;
}

async function poll(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`fake Slack socket: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Starts the WebSocket server and makes `api`'s apps.connections.open hand out its URLs. */
export async function startFakeSlackSocket(api: FakeSlackApi): Promise<FakeSlackSocket> {
  const issued = new Set<string>();
  const tickets: string[] = [];
  const acks: SocketAck[] = [];
  const unexpected: unknown[] = [];
  const open = new Set<WebSocket>();
  let connectionCount = 0;
  let pings = 0;

  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    // Like Slack, a ticket is good for one connection; anything else is refused at the upgrade.
    verifyClient: ({ req }, done) => {
      const url = new URL(req.url ?? '/', 'ws://127.0.0.1');
      const ticket = url.searchParams.get('ticket') ?? '';
      if (url.pathname !== '/link/' || !issued.delete(ticket)) return done(false, 401, 'invalid ticket');
      done(true);
    },
  });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const { port } = wss.address() as AddressInfo;

  wss.on('connection', (ws) => {
    connectionCount += 1;
    open.add(ws);
    ws.on('close', () => open.delete(ws));
    ws.on('ping', () => {
      pings += 1;
    });
    ws.on('message', (data, isBinary) => {
      let message: { envelope_id?: unknown; payload?: Record<string, unknown> } | null;
      try {
        message = JSON.parse(isBinary ? '' : data.toString());
      } catch {
        unexpected.push(data.toString());
        return;
      }
      if (typeof message?.envelope_id === 'string') {
        acks.push({ envelope_id: message.envelope_id, payload: message.payload, at: Date.now() });
      } else unexpected.push(message);
    });
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: open.size,
        debug_info: { host: 'applink-fake-1', build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: APP_ID },
      }),
    );
  });

  api.connectionsOpen = () => {
    const ticket = randomUUID();
    issued.add(ticket);
    tickets.push(ticket);
    return `ws://127.0.0.1:${port}/link/?ticket=${ticket}&app_id=${APP_ID}`;
  };

  const send = (
    type: string,
    payload: Record<string, unknown>,
    acceptsResponsePayload: boolean,
    options: EnvelopeOptions = {},
  ): string => {
    const envelopeId = options.envelopeId ?? randomUUID();
    const envelope: Record<string, unknown> = {
      envelope_id: envelopeId,
      payload,
      type,
      accepts_response_payload: acceptsResponsePayload,
    };
    if (type === 'events_api') {
      envelope.retry_attempt = options.retryAttempt ?? 0;
      envelope.retry_reason = options.retryReason ?? '';
    }
    const socket = [...open].at(-1);
    if (!socket) throw new Error('fake Slack socket: no client connected');
    socket.send(JSON.stringify(envelope));
    return envelopeId;
  };

  return {
    tickets,
    acks,
    unexpected,
    get connectionCount() {
      return connectionCount;
    },
    get openCount() {
      return open.size;
    },
    get pings() {
      return pings;
    },
    sendEvent: (payload, options) => send('events_api', payload, false, options),
    // Slack lets a slash command answer inside its ack (`accepts_response_payload: true`).
    sendSlashCommand: (payload, options) => send('slash_commands', payload, true, options),
    sendInteractive: (payload, options) => send('interactive', payload, false, options),
    async waitForAck(envelopeId, timeoutMs = 5000) {
      await poll(() => acks.some((a) => a.envelope_id === envelopeId), timeoutMs, `ack of ${envelopeId}`);
      return acks.find((a) => a.envelope_id === envelopeId)!;
    },
    waitForConnection: (minCount = 1, timeoutMs = 5000) =>
      poll(() => open.size > 0 && connectionCount >= minCount, timeoutMs, `connection #${minCount}`),
    waitForNoConnection: (timeoutMs = 5000) => poll(() => open.size === 0, timeoutMs, 'no connection'),
    disconnect(reason = 'refresh_requested') {
      for (const ws of open)
        ws.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'applink-fake-1' } }));
    },
    close() {
      api.connectionsOpen = null;
      for (const ws of open) ws.terminate();
      return new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
