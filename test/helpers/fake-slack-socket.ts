/**
 * A fake Slack Socket Mode endpoint on loopback, used with the fake Web API (`fake-slack-api.ts`):
 * `apps.connections.open` (called with the app-level `xapp-…` token) hands out a one-time
 * `ws://127.0.0.1:<port>/link/?ticket=…` URL, and this WebSocket server speaks Slack's side of the
 * protocol to the real `@slack/socket-mode` clients inside Scout's Socket Mode receiver:
 * `hello` on connect (with `num_connections`, every open connection of the app), envelopes
 * (`events_api`, `slash_commands`, `interactive`, or anything raw) spread over the ready
 * connections like Slack does, the client's acks (`{ envelope_id, payload }`) recorded, pings
 * answered (ws answers them with pongs), `disconnect` messages with Slack's reasons, dropped TCP
 * connections, and Slack's limit of 10 connections per app (`too_many_websockets`).
 * It keeps the books a user would care about: envelopes Slack had nowhere to send (`undeliverable`)
 * and how long there was no ready connection at all (`longestGapMs`).
 * Shapes as Slack sends them: https://docs.slack.dev/apis/events-api/using-socket-mode
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import type { FakeSlackApi } from './fake-slack-api.js';

const APP_ID = 'A00FAKEAPP01';
/** Slack's limit of open Socket Mode connections per app. */
const MAX_CONNECTIONS_PER_APP = 10;

export type DisconnectReason = 'refresh_requested' | 'warning' | 'link_disabled' | 'too_many_websockets';

export interface SocketAck {
  envelope_id: string;
  /** What the client answered inside the ack (empty for a plain ack). */
  payload: Record<string, unknown> | undefined;
  at: number;
  /** The connection the ack came back on, and the one the envelope was sent on. */
  connection: number;
  sentOn: number | undefined;
}

export interface EnvelopeOptions {
  /** Slack's redelivery counter (0 for the first delivery). */
  retryAttempt?: number;
  /** Why Slack redelivered (`timeout`, …); empty on the first delivery. */
  retryReason?: string;
  envelopeId?: string;
}

export interface DisconnectOptions {
  /** Which connections get the message: every open one (default) or the oldest. */
  which?: 'all' | 'oldest';
  /** Slack closes the connection itself this long after the message (unless the client did first). */
  closeAfterMs?: number;
}

export interface FakeSlackSocket {
  /** Tickets handed out by apps.connections.open, in order. */
  readonly tickets: string[];
  /** Every WebSocket connection the client opened (ever), and how many are open now. */
  readonly connectionCount: number;
  readonly openCount: number;
  /** Open connections that said hello and were not refused or dropped: where envelopes are sent. */
  readonly readyCount: number;
  /** The most connections open at once. */
  readonly maxOpen: number;
  /** Every non-ack message the client sent (Slack ignores them; tests assert there are none). */
  readonly unexpected: unknown[];
  readonly acks: SocketAck[];
  /** Envelope ids sent while no connection was ready: Slack could not deliver them. */
  readonly undeliverable: string[];
  /**
   * Envelope ids sent on a connection that closed before acking them (it was already closing when
   * they arrived), sent again on another connection as Slack retries unacknowledged deliveries.
   */
  readonly redelivered: string[];
  /** Pings the client sent (the client pings every clientPingTimeout / 3). */
  readonly pings: number;
  /** The longest stretch (ms) with no ready connection since the first hello, the current one included. */
  longestGapMs(): number;
  /** Sends an Events API envelope; `payload` is the event callback (`{ team_id, event_id, event, … }`). */
  sendEvent(payload: Record<string, unknown>, options?: EnvelopeOptions): string;
  /** Sends a slash command envelope; `payload` is the command's fields as JSON (not form-encoded). */
  sendSlashCommand(payload: Record<string, unknown>, options?: EnvelopeOptions): string;
  /** Sends an interactivity envelope (`block_actions`, `view_submission` …). */
  sendInteractive(payload: Record<string, unknown>, options?: EnvelopeOptions): string;
  /** Sends any message as it is (malformed envelopes, `app_rate_limited` …) on a ready connection. */
  sendRaw(message: unknown): void;
  /** Resolves with the client's ack of an envelope; rejects after `timeoutMs`. */
  waitForAck(envelopeId: string, timeoutMs?: number): Promise<SocketAck>;
  /** Resolves when a connection is open and has been sent `hello` (after `minCount` connections in all). */
  waitForConnection(minCount?: number, timeoutMs?: number): Promise<void>;
  /** Resolves when at least `count` connections are ready at once. */
  waitForReady(count: number, timeoutMs?: number): Promise<void>;
  /** Resolves when no connection is open. */
  waitForNoConnection(timeoutMs?: number): Promise<void>;
  /** Sends Slack's `disconnect` message (the client is expected to reconnect and close this one). */
  disconnect(reason?: DisconnectReason, options?: DisconnectOptions): void;
  /** Cuts the oldest open connection's TCP connection without a close frame (a network drop). */
  drop(): void;
  close(): Promise<void>;
}

interface Connection {
  readonly id: number;
  readonly ws: WebSocket;
  /** Sent hello and not refused or dropped: Slack delivers here. */
  ready: boolean;
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
  const undeliverable: string[] = [];
  const open: Connection[] = [];
  const sentOn = new Map<string, number>();
  /** Envelopes not acked yet, by id, with the connection they went out on. */
  const unacked = new Map<string, { connection: Connection; text: string }>();
  const redelivered: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let connectionCount = 0;
  let pings = 0;
  let maxOpen = 0;
  let next = 0;
  // Gap bookkeeping: from the first hello on, every stretch with no ready connection.
  let everReady = false;
  let gapSince: number | undefined;
  let longestGap = 0;

  const readyConnections = () => open.filter((c) => c.ready);
  const noteReadiness = () => {
    const anyReady = readyConnections().length > 0;
    if (anyReady) everReady = true;
    if (!everReady) return;
    if (!anyReady && gapSince === undefined) gapSince = Date.now();
    if (anyReady && gapSince !== undefined) {
      longestGap = Math.max(longestGap, Date.now() - gapSince);
      gapSince = undefined;
    }
  };
  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };

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

  const sendDisconnect = (connection: Connection, reason: DisconnectReason, closeAfterMs?: number) => {
    // A refused connection gets nothing more; one asked to refresh is still delivered to until it closes.
    if (reason === 'link_disabled' || reason === 'too_many_websockets') connection.ready = false;
    noteReadiness();
    connection.ws.send(
      JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'applink-fake-1' } }),
    );
    if (closeAfterMs !== undefined) later(closeAfterMs, () => connection.ws.close(1000));
  };

  wss.on('connection', (ws) => {
    connectionCount += 1;
    const connection: Connection = { id: connectionCount, ws, ready: false };
    open.push(connection);
    maxOpen = Math.max(maxOpen, open.length);
    ws.on('close', () => {
      open.splice(open.indexOf(connection), 1);
      connection.ready = false;
      noteReadiness();
      for (const [envelopeId, pending] of unacked) {
        if (pending.connection !== connection) continue;
        unacked.delete(envelopeId);
        const other = pick();
        if (!other) {
          undeliverable.push(envelopeId);
          continue;
        }
        redelivered.push(envelopeId);
        deliver(other, envelopeId, pending.text);
      }
    });
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
        unacked.delete(message.envelope_id);
        acks.push({
          envelope_id: message.envelope_id,
          payload: message.payload,
          at: Date.now(),
          connection: connection.id,
          sentOn: sentOn.get(message.envelope_id),
        });
      } else unexpected.push(message);
    });
    if (open.length > MAX_CONNECTIONS_PER_APP) {
      sendDisconnect(connection, 'too_many_websockets', 100);
      return;
    }
    connection.ready = true;
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: open.length,
        debug_info: { host: 'applink-fake-1', build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: APP_ID },
      }),
    );
    noteReadiness();
  });

  api.connectionsOpen = () => {
    const ticket = randomUUID();
    issued.add(ticket);
    tickets.push(ticket);
    return `ws://127.0.0.1:${port}/link/?ticket=${ticket}&app_id=${APP_ID}`;
  };

  /** Round robin over the ready connections, as Slack spreads envelopes; undefined when none. */
  const pick = (): Connection | undefined => {
    // One the client has begun to close (its close frame arrived) takes nothing more.
    const ready = readyConnections().filter((c) => c.ws.readyState === c.ws.OPEN);
    if (ready.length === 0) return undefined;
    next = (next + 1) % ready.length;
    return ready[next];
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
    const connection = pick();
    if (!connection) {
      undeliverable.push(envelopeId);
      return envelopeId;
    }
    deliver(connection, envelopeId, JSON.stringify(envelope));
    return envelopeId;
  };

  function deliver(connection: Connection, envelopeId: string, text: string): void {
    sentOn.set(envelopeId, connection.id);
    unacked.set(envelopeId, { connection, text });
    connection.ws.send(text);
  }

  return {
    tickets,
    acks,
    unexpected,
    undeliverable,
    redelivered,
    get connectionCount() {
      return connectionCount;
    },
    get openCount() {
      return open.length;
    },
    get readyCount() {
      return readyConnections().length;
    },
    get maxOpen() {
      return maxOpen;
    },
    get pings() {
      return pings;
    },
    longestGapMs: () => Math.max(longestGap, gapSince === undefined ? 0 : Date.now() - gapSince),
    sendEvent: (payload, options) => send('events_api', payload, false, options),
    // Slack lets a slash command answer inside its ack (`accepts_response_payload: true`).
    sendSlashCommand: (payload, options) => send('slash_commands', payload, true, options),
    sendInteractive: (payload, options) => send('interactive', payload, false, options),
    sendRaw(message) {
      const connection = pick();
      if (!connection) throw new Error('fake Slack socket: no ready connection');
      connection.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
    },
    async waitForAck(envelopeId, timeoutMs = 5000) {
      await poll(() => acks.some((a) => a.envelope_id === envelopeId), timeoutMs, `ack of ${envelopeId}`);
      return acks.find((a) => a.envelope_id === envelopeId)!;
    },
    waitForConnection: (minCount = 1, timeoutMs = 5000) =>
      poll(
        () => readyConnections().length > 0 && connectionCount >= minCount,
        timeoutMs,
        `connection #${minCount}`,
      ),
    waitForReady: (count, timeoutMs = 5000) =>
      poll(() => readyConnections().length >= count, timeoutMs, `${count} ready connections`),
    waitForNoConnection: (timeoutMs = 5000) => poll(() => open.length === 0, timeoutMs, 'no connection'),
    disconnect(reason = 'refresh_requested', options = {}) {
      const targets = options.which === 'oldest' ? open.slice(0, 1) : [...open];
      for (const connection of targets) sendDisconnect(connection, reason, options.closeAfterMs);
    },
    drop() {
      const oldest = open[0];
      if (!oldest) throw new Error('fake Slack socket: no connection to drop');
      // Slack sees the reset at once and stops sending there.
      oldest.ready = false;
      noteReadiness();
      oldest.ws.terminate();
    },
    close() {
      api.connectionsOpen = null;
      for (const timer of timers) clearTimeout(timer);
      for (const { ws } of open) ws.terminate();
      return new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
