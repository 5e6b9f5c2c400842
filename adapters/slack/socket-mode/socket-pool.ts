/**
 * Scout's Socket Mode receiver for Bolt: a small pool of Socket Mode connections, so that Slack
 * always has one to deliver to.
 * - It keeps `connections` sockets open (Slack spreads envelopes over all of an app's connections):
 *   a dropped one leaves the others serving while it is replaced, at once.
 * - When Slack asks for a connection back (`warning`, then `refresh_requested`, every few hours) the
 *   replacement is opened first and the old one closed only once the new one has said `hello`.
 * - Failed attempts are retried with jittered, capped exponential backoff (Retry-After honoured),
 *   logged at warn with their cause (one line per interval); after start-up it never gives up.
 * - start() resolves with the first ready connection, fails at once on a token Slack refuses, and
 *   gives up with a clear error after `startupTimeoutMs`.
 * - Every envelope is acknowledged: delivered ones by Bolt (or here, when no listener did within
 *   Slack's 3 s), malformed, unknown and `app_rate_limited` ones here.
 * Upstream's SocketModeClient does the protocol; see socket-client.ts for what is replaced.
 */
import type { App, Receiver } from '@slack/bolt';
import type { Logger } from '../../../src/logger.js';
import { ThrottledLog } from '../../../src/ops/throttled-log.js';
import { deliverEnvelope } from './envelope-delivery.js';
import { EVENTS_PER_HOUR_LIMIT, type SocketMessage } from './envelopes.js';
import { describeOpenFailure, isUnrecoverable, platformError, retryAfterMs } from './open-failure.js';
import {
  DEFAULT_SOCKET_TIMINGS,
  MAX_APP_CONNECTIONS,
  type SocketPoolOptions,
  type SocketTimings,
} from './pool-options.js';
import { quietLogger } from './quiet-logger.js';
import { Sleeper } from './sleeper.js';
import { createSocketClient, type SocketClient } from './socket-client.js';

/** apps.connections.open is one quick call; the pool does the retrying, so the client must not. */
const OPEN_TIMEOUT_MS = 10_000;

interface Socket {
  readonly id: number;
  readonly client: SocketClient;
  /** Said `hello`: envelopes may come. */
  ready: boolean;
  /** Slack asked for it back: a replacement is on its way, then it is closed. */
  retiring: boolean;
  /** We are closing it on purpose (handover, stop): its close is not a drop. */
  closing: boolean;
}

class StartupTimeout extends Error {}

export class SocketPool implements Receiver {
  readonly #options: SocketPoolOptions;
  readonly #timings: SocketTimings;
  readonly #log: Logger;
  readonly #sockets = new Set<Socket>();
  readonly #sleeper = new Sleeper();
  readonly #failureLog: ThrottledLog;
  #app: App | undefined;
  #target: number;
  /** Open loops in flight (each will add one socket). */
  #loops = 0;
  #nextId = 0;
  #stopped = true;
  #started = false;
  #lastCause = 'not started';
  /** Refusals (too_many_websockets, link_disabled) in a row: the next attempt waits first. */
  #refusals = 0;
  #checkedOthers = false;

  constructor(options: SocketPoolOptions) {
    this.#options = options;
    this.#timings = { ...DEFAULT_SOCKET_TIMINGS, ...options.timings };
    this.#log = options.logger.child({ component: 'socket-mode' });
    this.#target = Math.max(1, Math.min(options.connections, MAX_APP_CONNECTIONS - 1));
    this.#failureLog = new ThrottledLog(this.#timings.failureLogIntervalMs);
  }

  init(app: App): void {
    this.#app = app;
  }

  /** Sockets that said hello and are not closed yet (retiring ones still receive). */
  get readyCount(): number {
    return [...this.#sockets].filter((s) => s.ready).length;
  }

  async start(): Promise<void> {
    this.#stopped = false;
    this.#publish('connecting');
    let deadline: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      deadline = setTimeout(() => reject(new StartupTimeout()), this.#options.startupTimeoutMs);
    });
    // The first connection alone: its hello tells whether another instance is connected.
    const first = this.#openUntilReady({ startup: true });
    first.catch(() => {}); // when the deadline wins, the loop's end is of no interest
    try {
      await Promise.race([first, timedOut]);
    } catch (err) {
      await this.stop();
      throw this.#startError(err);
    } finally {
      clearTimeout(deadline);
    }
    this.#started = true;
    this.#log.info({ connections: this.#target }, 'Slack Socket Mode connected');
    this.#fill();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#sleeper.wakeAll();
    await Promise.all([...this.#sockets].map((socket) => this.#close(socket)));
    this.#options.connection?.stopped();
  }

  #startError(err: unknown): Error {
    const seconds = Number((this.#options.startupTimeoutMs / 1000).toFixed(1));
    if (err instanceof StartupTimeout) {
      return new Error(
        `Slack: no Socket Mode connection after ${seconds} s (last error: ${this.#lastCause}); giving up. Check that SLACK_API_URL (${this.#options.apiUrl ?? 'https://slack.com/api/'}) is reachable and Slack is up, or raise SLACK_STARTUP_TIMEOUT.`,
      );
    }
    const code = platformError(err);
    return new Error(
      `Slack: could not open a Socket Mode connection with SLACK_APP_TOKEN (${code ?? describeOpenFailure(err)}). Check that it is the app-level token (xapp-…) with the connections:write scope and that Socket Mode is enabled.`,
    );
  }

  /** Opens loops until `target` connections (not counting retiring ones) are open or on their way. */
  #fill(): void {
    if (this.#stopped || !this.#started) return;
    // A socket not ready yet belongs to a loop: count the loop, not the socket.
    const ready = [...this.#sockets].filter((s) => s.ready);
    const active = ready.filter((s) => !s.retiring).length + this.#loops;
    const room = MAX_APP_CONNECTIONS - ready.length - this.#loops;
    const missing = Math.min(this.#target - active, room);
    for (let i = 0; i < missing; i++) {
      void this.#openUntilReady({ startup: false })
        .catch((err) => this.#log.error({ err }, 'Socket Mode reconnect loop failed'))
        .finally(() => this.#fill());
    }
  }

  /** Tries until one connection is ready (or the pool stops). Counts itself in `#loops`. */
  async #openUntilReady({ startup }: { startup: boolean }): Promise<void> {
    this.#loops += 1;
    try {
      let failures = 0;
      // After refusals, even the first try waits: reconnecting at once would be refused again.
      let wait = this.#refusals > 0 ? this.#backoff(this.#refusals) : 0;
      while (!this.#stopped) {
        if (wait > 0) await this.#sleeper.sleep(wait);
        if (this.#stopped) return;
        if (!startup) this.#options.connection?.reconnecting();
        try {
          await this.#openOne();
          this.#failureLog.reset();
          return;
        } catch (err) {
          failures += 1;
          this.#lastCause = describeOpenFailure(err);
          if (this.#stopped) return;
          if (startup && isUnrecoverable(err)) throw err;
          wait = retryAfterMs(err) ?? this.#backoff(failures);
          this.#publish(`not connected: ${this.#lastCause}`);
          this.#failureLog.write((suppressed) =>
            this.#log.warn(
              {
                cause: this.#lastCause,
                attempt: failures,
                retryInMs: wait,
                ...(suppressed ? { suppressed } : {}),
              },
              startup
                ? 'Slack Socket Mode: could not connect, retrying'
                : 'Slack Socket Mode: reconnect failed, retrying',
            ),
          );
        }
      }
    } finally {
      this.#loops -= 1;
    }
  }

  #backoff(failures: number): number {
    const { retryMinMs, retryMaxMs } = this.#timings;
    const capped = Math.min(retryMaxMs, retryMinMs * 2 ** Math.min(failures - 1, 30));
    return Math.round(capped * (0.5 + Math.random() * 0.5));
  }

  async #openOne(): Promise<void> {
    const client = createSocketClient({
      appToken: this.#options.appToken,
      autoReconnectEnabled: false,
      clientPingTimeout: this.#timings.pingTimeoutMs,
      logger: quietLogger(this.#log),
      clientOptions: {
        ...(this.#options.apiUrl ? { slackApiUrl: this.#options.apiUrl } : {}),
        timeout: OPEN_TIMEOUT_MS,
        retryConfig: { retries: 0 },
        rejectRateLimitedCalls: true,
      },
    });
    const socket: Socket = { id: ++this.#nextId, client, ready: false, retiring: false, closing: false };
    this.#sockets.add(socket);
    // Listening before hello: an envelope can arrive in the same read as the hello, before start()
    // has resolved, and must not be missed.
    client.on('disconnect_requested', (reason: string) => this.#onDisconnectRequested(socket, reason));
    client.on('socket_message', (message: Exclude<SocketMessage, { kind: 'hello' | 'disconnect' }>) =>
      this.#onMessage(socket, message),
    );
    let helloTimer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        client.start().catch((err: unknown) => {
          throw err ?? new Error('the WebSocket closed before hello');
        }),
        new Promise<never>((_, reject) => {
          helloTimer = setTimeout(
            () => reject(new Error(`no hello within ${this.#timings.helloTimeoutMs} ms`)),
            this.#timings.helloTimeoutMs,
          );
        }),
      ]);
    } catch (err) {
      this.#sockets.delete(socket);
      socket.closing = true;
      await client.disconnect().catch(() => {});
      throw err;
    } finally {
      clearTimeout(helloTimer);
    }
    if (this.#stopped) {
      await this.#close(socket);
      return;
    }
    socket.ready = true;
    // From now on a close is a drop (or a handover); before, it was a failed attempt.
    client.on('disconnected', () => this.#onClosed(socket));
    this.#warnIfNotAlone(client.numConnections);
    this.#publish();
    // A handover: the replacement is ready, so one connection Slack asked back can go now.
    const retiring = [...this.#sockets].find((s) => s.retiring && !s.closing);
    if (retiring) void this.#close(retiring);
  }

  /** At start only: `num_connections` above 1 means another instance (or a just-stopped one) is connected. */
  #warnIfNotAlone(numConnections: number | undefined): void {
    if (this.#checkedOthers) return;
    this.#checkedOthers = true;
    if (numConnections === undefined || numConnections <= 1 || this.#options.storeBackend === 'redis') return;
    this.#log.warn(
      { numConnections, store: this.#options.storeBackend },
      'Slack reports other Socket Mode connections for this app: another Scout instance is running. With a per-instance store (memory, SQLite) each instance has its own dedupe and locks, so events can be answered twice. Point every instance at one Redis (STORE_URL=redis://…) or run one instance.',
    );
  }

  #onDisconnectRequested(socket: Socket, reason: string): void {
    if (socket.closing) return;
    if (reason === 'link_disabled') {
      this.#refusals += 1;
      this.#log.error(
        { reason },
        'Slack closed the Socket Mode connection: Socket Mode is turned off for this app. Turn it on (app settings → Socket Mode), or use HTTP mode (unset SLACK_APP_TOKEN, set SLACK_SIGNING_SECRET). Scout keeps retrying and is not ready meanwhile.',
      );
      void this.#close(socket, reason);
      return;
    }
    if (reason === 'too_many_websockets') {
      this.#refusals += 1;
      // This instance keeps one connection fewer, so instances together stay under Slack's limit.
      this.#target = Math.max(1, this.#target - 1);
      this.#log.error(
        { reason, maxPerApp: MAX_APP_CONNECTIONS, keeping: this.#target },
        `Slack refused a Socket Mode connection: too many open connections for this app (at most ${MAX_APP_CONNECTIONS} across all instances). Run fewer instances or lower SLACK_SOCKET_CONNECTIONS.`,
      );
      void this.#close(socket, reason);
      return;
    }
    // `warning` (a refresh is coming), `refresh_requested` and anything new: replace, then close.
    this.#refusals = 0;
    this.#log.info(
      { reason, socket: socket.id },
      'Slack asked for a Socket Mode connection back: opening its replacement first',
    );
    if (!socket.retiring) {
      socket.retiring = true;
      this.#fill();
    }
  }

  /** A connection closed: on purpose (handover, stop) or dropped. Either way the pool refills. */
  #onClosed(socket: Socket): void {
    if (!this.#sockets.delete(socket)) return;
    const left = this.readyCount;
    if (!socket.closing && !this.#stopped) {
      this.#lastCause = 'connection dropped';
      this.#log.warn(
        { socket: socket.id, readyLeft: left },
        'Slack Socket Mode connection dropped: reconnecting',
      );
    }
    this.#publish(left === 0 ? `not connected: ${this.#lastCause}, reconnecting` : undefined);
    this.#fill();
  }

  async #close(socket: Socket, cause?: string): Promise<void> {
    if (cause) this.#lastCause = cause;
    socket.closing = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      socket.client.disconnect().catch(() => {}),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.#timings.closeWaitMs);
      }),
    ]);
    clearTimeout(timer);
    // The close event normally did this; after a timed-out handshake it is done here.
    this.#onClosed(socket);
  }

  #onMessage(socket: Socket, message: Exclude<SocketMessage, { kind: 'hello' | 'disconnect' }>): void {
    const ack = (envelopeId: string, payload?: Record<string, unknown>) =>
      socket.client
        .ack(envelopeId, payload)
        .catch((err: unknown) => this.#log.warn({ err, envelopeId }, 'Socket Mode ack could not be sent'));
    switch (message.kind) {
      case 'deliver':
        this.#refusals = 0;
        void deliverEnvelope(this.#app, message, ack, this.#timings.ackDeadlineMs, this.#log);
        return;
      case 'ack-only':
        void ack(message.envelopeId);
        this.#log.warn(
          { envelopeId: message.envelopeId, type: message.type, problem: message.problem },
          'Slack envelope acknowledged and dropped: it cannot be handled',
        );
        return;
      case 'rate-limited':
        if (message.envelopeId) void ack(message.envelopeId);
        this.#log.warn(
          { team: message.team, minute: message.minute?.toISOString() },
          `Slack is rate-limiting events to this app (app_rate_limited): over ${EVENTS_PER_HOUR_LIMIT} events per workspace in an hour, so events from the minute starting at "minute" were not delivered. Subscribe to fewer event types if this repeats.`,
        );
        return;
      case 'ignore':
        this.#log.warn({ problem: message.problem }, 'Socket Mode message ignored');
    }
  }

  #publish(notReadyDetail?: string): void {
    const ready = this.readyCount;
    const detail =
      ready > 0
        ? `Socket Mode, ${ready} connection${ready === 1 ? '' : 's'}`
        : (notReadyDetail ?? `not connected: ${this.#lastCause}`);
    this.#options.connection?.update({ ready, needed: 1, detail });
  }
}
