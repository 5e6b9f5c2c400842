/**
 * The Slack surface: a Bolt app in Socket Mode (SLACK_APP_TOKEN set, no public URL needed) or HTTP
 * mode (SLACK_SIGNING_SECRET, for several instances behind a load balancer). Events are acknowledged
 * at once (`processBeforeResponse: false`) and handled afterwards; Slack's retried deliveries are
 * dropped by `event_id`, the app_mention + message double delivery by message id (in the core).
 * The events that start turns are wired in message-events.ts; commands, buttons and the Home tab in
 * commands.ts, actions.ts and home-tab.ts. What they say is said in the user's locale by the payload
 * builders (render-blocks.ts, notes.ts, home-view.ts) and the turn sink: this file hands phrases on.
 */
import type { Server } from 'node:http';
import {
  App,
  type CustomRoute,
  HTTPModuleFunctions,
  HTTPReceiver,
  LogLevel,
  type Logger as BoltLogger,
} from '@slack/bolt';
import type { Config } from '../../src/config/env.js';
import type { Logger } from '../../src/logger.js';
import { phrase } from '../../src/i18n/phrase.js';
import type { SurfaceConnection } from '../../src/ops/surface-connection.js';
import { type EditorClock, systemClock } from '../../src/render/editor-clock.js';
import { ChannelPacers } from '../../src/render/channel-pacer.js';
import { resilientBudget } from '../../src/render/pace-budget.js';
import type { ChannelLimits } from '../../src/render/pace-rules.js';
import type { Stores } from '../../src/store/types.js';
import type { Locale, ScoutCore, Surface } from '../../src/surface.js';
import { isUserAllowed } from '../../src/core/allowed-channels.js';
import { registerActions } from './actions.js';
import { ButtonRelay } from './button-relay.js';
import { registerCommands } from './commands.js';
import { usageReport } from '../../src/budget/usage-report.js';
import { registerHomeTab } from './home-tab.js';
import { registerMessageEvents } from './message-events.js';
import { routeListeners } from './listener-router.js';
import { conversationId } from './ids.js';
import { toLocale } from '../../src/i18n/locale.js';
import { ephemeralNote } from './notes.js';
import type { SocketTimings } from './socket-mode/pool-options.js';
import { SocketPool } from './socket-mode/socket-pool.js';
import { SlackSurfaceState } from './surface-state.js';
import { SlackTurnSink } from './turn-sink.js';
import { AnsweredThreads, type Trigger } from './triggers.js';
import { leanFetchWithin } from '../../src/http/lean-fetch.js';
import { type AcceptThread, serveFromAcceptThread } from '../../src/http/accept-thread.js';
import { http } from '../../src/http/node-http.js';
import { listenError } from '../../src/http/listen-error.js';
import { SlackUserDirectory } from './user-directory.js';

/** Connections the kernel may hold for Scout before they are accepted (see start()). */
const HTTP_ACCEPT_BACKLOG = 4096;

/** Requests in flight at stop() are answered within this (Slack's acknowledgement deadline is 3 s). */
const HTTP_STOP_GRACE_MS = 3_000;

/**
 * Bolt's request handling on a server of our own: connections reach it from an acceptor thread,
 * which keeps accepting while the event loop is busy with running turns (src/http/accept-thread.ts).
 * Requests Bolt does not route (unknown paths) get its default 404, as on Bolt's own server.
 */
function httpServer(receiver: HTTPReceiver, logger: BoltLogger): Server {
  return http.createServer((request, response) => {
    try {
      receiver.requestListener(request, response);
    } catch (error) {
      HTTPModuleFunctions.defaultDispatchErrorHandler({ error: error as Error, logger, request, response });
    }
  });
}

/**
 * The WebClient's default retry policy can block a call ~30 minutes: a couple of quick retries is
 * enough for a chat reply, and a stuck request is abandoned after 10 s.
 */
const WEB_API_RETRIES = { retries: 2, factor: 2, minTimeout: 200, maxTimeout: 2_000 };
const WEB_API_TIMEOUT_MS = 10_000;
/**
 * App-level tokens start with this. Slack answers any other token with `not_allowed_token_type`,
 * which @slack/socket-mode retries forever: start() would hang instead of failing.
 */
const APP_TOKEN_PREFIX = 'xapp-';

export interface SlackSurfaceOptions {
  core: ScoutCore;
  config: Config;
  logger: Logger;
  stores: Stores;
  /** HTTP mode: the port to listen on (tests pass 0); defaults to PORT. */
  port?: number;
  /** Extra HTTP routes on Bolt's server in HTTP mode (e.g. /healthz, /metrics). */
  routes?: CustomRoute[];
  /** Minimum gap between two edits of one message (default 1000 ms; tests shrink it). */
  editIntervalMs?: number;
  /** Try Slack's native AI streaming first (default true). */
  nativeStreaming?: boolean;
  /** Counts every message post and edit (the `scout_edits_sent_total` metric). */
  onEdit?: () => void;
  /** Timers of the edit throttling (tests; the benchmark measures time spent pacing edits). */
  editorClock?: EditorClock;
  /** Per-channel write limits (default SLACK_CHANNEL_LIMITS; tests shrink them with the interval). */
  channelLimits?: ChannelLimits;
  /** Per-workspace write limits (default SLACK_WORKSPACE_LIMITS; tests shrink them with the interval). */
  workspaceLimits?: ChannelLimits;
  /** Socket Mode timings (tests shrink them; defaults in socket-mode/socket-pool.ts). */
  socketMode?: Partial<SocketTimings>;
  /** Where the connection state is reported (/readyz, connection metrics). */
  connection?: SurfaceConnection;
}

export interface SlackSurface extends Surface {
  /** The bound port in HTTP mode once started. */
  readonly port: number | undefined;
  readonly state: SlackSurfaceState;
  /** Resolves when every turn started so far has finished (tests, shutdown). */
  idle(): Promise<void>;
}

function boltLogger(logger: Logger): BoltLogger {
  const log = logger.child({ component: 'bolt' });
  let level = LogLevel.INFO;
  return {
    debug: (...m) => log.debug(m.map(String).join(' ')),
    info: (...m) => log.info(m.map(String).join(' ')),
    warn: (...m) => log.warn(m.map(String).join(' ')),
    error: (...m) => log.error(m.map(String).join(' ')),
    setLevel: (l) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => {},
  };
}

export function createSlackSurface(options: SlackSurfaceOptions): SlackSurface {
  const { core, config, logger, stores } = options;
  const env = config.env;
  const socketMode = Boolean(env.SLACK_APP_TOKEN);
  const log = logger.child({ surface: 'slack' });
  // Socket Mode through our own receiver: several connections, replaced before they are closed,
  // every envelope acked (socket-mode/socket-pool.ts).
  const receiver = socketMode
    ? new SocketPool({
        appToken: env.SLACK_APP_TOKEN!,
        apiUrl: env.SLACK_API_URL,
        logger: log,
        connections: env.SLACK_SOCKET_CONNECTIONS,
        startupTimeoutMs: env.SLACK_STARTUP_TIMEOUT,
        storeBackend: stores.backend,
        ...(options.connection ? { connection: options.connection } : {}),
        ...(options.socketMode ? { timings: options.socketMode } : {}),
      })
    : undefined;
  const boltLog = boltLogger(log);
  // HTTP mode: Bolt's receiver handles the requests, but its server does not listen; start() serves it
  // from an acceptor thread instead.
  const httpReceiver = receiver
    ? undefined
    : new HTTPReceiver({
        signingSecret: env.SLACK_SIGNING_SECRET ?? '',
        processBeforeResponse: false,
        customRoutes: options.routes ?? [],
        logger: boltLog,
      });
  const app = new App({
    token: env.SLACK_BOT_TOKEN,
    // Verify the token in start() (not in the constructor), so a bad token or an unreachable
    // SLACK_API_URL becomes a readable start-up error instead of an unhandled rejection.
    deferInitialization: true,
    receiver: (receiver ?? httpReceiver)!,
    clientOptions: {
      slackApiUrl: env.SLACK_API_URL,
      retryConfig: WEB_API_RETRIES,
      // node:http instead of Node's fetch, and the socket's idle timeout as the time limit instead of
      // an AbortSignal.timeout per call: a fraction of the CPU per Web API call, and no WebAssembly
      // HTTP parser to compile (src/http/lean-fetch.ts).
      fetch: leanFetchWithin(WEB_API_TIMEOUT_MS),
    },
    logger: boltLog,
  });
  const state = new SlackSurfaceState({ containers: true, streaming: options.nativeStreaming !== false });
  const answered = new AnsweredThreads(stores.meta, env.SESSION_TTL);
  // Presses for a turn running on another instance are relayed through the shared store.
  const relay = new ButtonRelay(stores.meta, log, stores.backend === 'redis', env.ADMIN_USERS);
  const users = new SlackUserDirectory((args) => app.client.users.info(args));
  const inFlight = new Set<Promise<void>>();
  // One pacer per channel, shared by every turn there (src/render/channel-pacer.ts).
  const pacers = new ChannelPacers(options.editorClock);
  // One pacer per workspace for what Slack counts per workspace (chat.update, chat.delete: Tier 3;
  // the stream's methods: Tiers 2 and 4). With a store several instances share (Redis), the
  // workspace's windows are counted there for all of them; when it cannot answer, each instance
  // paces alone (src/render/pace-budget.ts).
  const clock = options.editorClock ?? systemClock;
  const workspacePacers = new ChannelPacers(
    clock,
    stores.paceBudget
      ? {
          budget: resilientBudget(stores.paceBudget, {
            clock,
            onOutage: (err) =>
              log.warn(
                { err: err instanceof Error ? err.message : String(err) },
                'shared pacing unavailable; pacing this instance’s Slack writes alone until the store answers',
              ),
            onRecovered: () => log.info('shared pacing available again'),
          }),
          key: (team, kind) => `slack:${team}:${kind}`,
        }
      : undefined,
  );
  let acceptor: AcceptThread | undefined;
  let accepting = true;

  const localeOf = async (userId: string): Promise<Locale> =>
    toLocale((await users.lookup(userId))?.locale, core.locale);

  const sinkFor = (team: string, trigger: Trigger, locale: Locale) =>
    new SlackTurnSink(
      {
        client: app.client,
        state,
        logger: log,
        editIntervalMs: options.editIntervalMs,
        nativeStreaming: options.nativeStreaming,
        onEdit: options.onEdit,
        ...(options.editorClock ? { clock: options.editorClock } : {}),
        pacers,
        ...(options.channelLimits ? { channelLimits: options.channelLimits } : {}),
        workspacePacers,
        ...(options.workspaceLimits ? { workspaceLimits: options.workspaceLimits } : {}),
      },
      {
        team,
        channel: trigger.channel,
        threadTs: trigger.threadTs,
        userId: trigger.userId,
        conversationId: conversationId(team, trigger.channel, trigger.threadTs),
        locale,
      },
    );

  // One Bolt listener each for Scout's actions and events (listener-router.ts says why).
  const listeners = routeListeners(app);
  registerMessageEvents(app, listeners, {
    core,
    config,
    log,
    state,
    relay,
    answered,
    users,
    localeOf,
    sinkFor,
    inFlight,
    accepting: () => accepting,
  });

  // Buttons on Scout's messages: a refused user gets one private note and the press does nothing.
  // App Home actions pass on: the core refuses their changes and the panel shows its note.
  app.use(async (args) => {
    const { body, next } = args;
    const action = body as { type?: string; user?: { id?: string }; channel?: { id?: string } };
    const user = action.user?.id;
    if (
      action.type !== 'block_actions' ||
      !user ||
      !action.channel?.id ||
      isUserAllowed(config, { userId: user })
    )
      return next();
    await (args as { ack?: () => Promise<void> }).ack?.();
    await app.client.chat
      .postEphemeral(
        ephemeralNote(
          { channel: action.channel.id, user },
          phrase('error.user-not-allowed'),
          await localeOf(user),
        ),
      )
      .catch((err) => log.warn({ err: String(err) }, 'access refusal note failed'));
  });

  const home = registerHomeTab(app, listeners, {
    core,
    meta: stores.meta,
    logger: log,
    localeOf,
    admins: env.ADMIN_USERS,
    isAllowed: (userId) => isUserAllowed(config, { userId }),
    usage: async (userId, locale) => (await usageReport({ config, stores, userId, locale })).text,
  });
  registerCommands(app, { core, logger: log, localeOf, onChanged: (team, user) => home.publish(team, user) });
  registerActions(listeners, { core, state, relay, logger: log, localeOf });
  app.error(async (err) => {
    log.error({ err }, 'bolt error');
  });

  return {
    name: 'slack',
    state,
    get port() {
      return acceptor?.port;
    },
    async start() {
      if (socketMode && !env.SLACK_APP_TOKEN!.startsWith(APP_TOKEN_PREFIX)) {
        throw new Error(
          `Slack: SLACK_APP_TOKEN must be the app-level token (${APP_TOKEN_PREFIX}…, Basic Information → App-Level Tokens, scope connections:write), not the bot token.`,
        );
      }
      try {
        await app.init();
      } catch (err) {
        const reason =
          (err as { data?: { error?: string }; code?: string }).data?.error ?? (err as Error).message;
        throw new Error(
          `Slack: could not verify SLACK_BOT_TOKEN at ${env.SLACK_API_URL} (${reason}). Check the token and SLACK_API_URL.`,
        );
      }
      if (socketMode) {
        // The pool's errors say what failed and what to do (token refused, no connection in time).
        await app.start();
        return;
      }
      const port = options.port ?? env.PORT;
      acceptor = await serveFromAcceptThread(httpServer(httpReceiver!, boltLog), {
        port,
        // A deep accept queue: Node's default (511) overflows when a burst of events arrives, and
        // the kernel then drops connections that Slack re-sends only after a 1-3 s SYN retry. The
        // kernel caps it at net.core.somaxconn.
        backlog: HTTP_ACCEPT_BACKLOG,
        onFailure: (err) => {
          log.error({ err }, 'slack HTTP mode stopped accepting connections; restart Scout');
          options.connection?.update({ ready: 0, detail: 'HTTP mode, not accepting connections' });
        },
      }).catch((err: unknown) => {
        throw listenError(err, port, 'Slack HTTP mode');
      });
      log.info({ port: acceptor.port }, 'slack listening (HTTP mode)');
      options.connection?.update({ ready: 1, needed: 1, detail: 'HTTP mode, listening' });
    },
    async stop() {
      accepting = false;
      // The pool's stop() waits for every socket to close (bounded); in HTTP mode requests in flight
      // get a moment to be answered.
      if (acceptor) await acceptor.close(HTTP_STOP_GRACE_MS);
      else await app.stop().catch((err) => log.warn({ err }, 'slack stop failed'));
      options.connection?.stopped();
    },
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
