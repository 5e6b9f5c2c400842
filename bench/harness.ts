/**
 * The system under test: the real Scout core (agent mode) behind the real Slack surface in HTTP mode
 * (Bolt's receiver), its clients pointed at the fakes. A turn starts with a signed `app_mention`
 * posted to Bolt, exactly as Slack delivers it, and ends when the core's `handleMessage` resolves
 * (which waits for the sink's final edit). The core is wrapped only to timestamp that end.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import pino from 'pino';
import { createSlackSurface, type SlackSurface } from '../adapters/slack/slack-surface.js';
import { type Config, loadConfig } from '../src/config/env.js';
import { buildScout } from '../src/core/build-scout.js';
import type { Scout } from '../src/core/scout.js';
import { createLogger, type Logger, silentLogger } from '../src/logger.js';
import { createStores } from '../src/store/create-stores.js';
import type { Stores } from '../src/store/types.js';
import type { ScoutCore, TurnSink } from '../src/surface.js';
import { postSigned } from '../test/helpers/fake-slack-api.js';
import { ClientTimings } from './client-timing.js';
import { TURN_TAG, epochNow } from './fakes/fake-llm.js';
import { BENCH_TAVILY_KEY } from './fakes/fake-search.js';
import { BENCH_BOT_USER, type FakesInfo } from './fakes/fakes.js';
import { say } from '../src/i18n/say.js';

const SIGNING_SECRET = 'bench-signing-secret';
const TEAM = 'T00FAKE00AA';
/**
 * Users the mentions come from. Their locale (users.info, one Web API round trip) is cached per
 * process, so a workspace's regular users cost it once; the warm-up turns meet every one of them,
 * so the measured turns see the steady state.
 */
const USERS = 2;
/** Names a benchmark event's turn in its HTTP request, so the server side can timestamp it. */
const TAG_HEADER = 'x-bench-turn';
/** Node's hook for "an HTTP server got a request (headers parsed)" — Bolt's server included. */
const SERVER_REQUEST = 'http.server.request.start';
/** A turn that has not ended after this long counts as an error (agent limit is 60 s). */
export const TURN_TIMEOUT_MS = 120_000;

export interface TurnRecord {
  tag: string;
  /** The Slack thread, `channel:ts` as the fake Slack API's calls name it. */
  thread: string;
  /** Epoch ms (sub-ms) when the event was posted / when the core finished the turn. */
  postedAt: number;
  /** When Bolt's HTTP answer (the ack) came back. */
  ackedAt?: number;
  /** When Scout's HTTP server had the request's headers (the loopback delivery is before it). */
  receivedAt?: number;
  /** When the core called the sink's `done` / when that returned (the final render). */
  doneAt?: number;
  doneEndAt?: number;
  /** When the surface handed the message to the core (Bolt, dedupe, users.info are before it). */
  coreStartAt?: number;
  endedAt?: number;
  /** The core observer said error/cancelled, or the event was refused, or it timed out. */
  error?: string;
  ended: Promise<void>;
}

export interface BenchScout {
  scout: Scout;
  stores: Stores;
  config: Config;
  surface: SlackSurface;
  turns: Map<string, TurnRecord>;
  /** Model/search waits and edit pacing per turn, measured inside Scout's process. */
  timings: ClientTimings;
  /** Posts one mention that starts a new thread; resolves once Bolt acknowledged it. */
  startTurn(tag: string, index: number): Promise<TurnRecord>;
  close(): Promise<void>;
}

export interface BenchScoutOptions {
  fakes: FakesInfo;
  storeUrl: string;
  /** Searches the agent makes before answering (AGENT_MAX_TOOL_CALLS). */
  searches: number;
  nativeStreaming: boolean;
  /** A pino level; default silent (logging cost is then not measured). */
  logLevel?: string;
  /** Store key prefix (several runs against one Redis). */
  namespacePrefix?: string;
  stores?: Stores;
}

export function benchEnv(options: BenchScoutOptions): Record<string, string> {
  const { fakes } = options;
  return {
    OPENAI_API_KEY: 'sk-bench-key',
    OPENAI_BASE_URL: fakes.llmBaseUrl,
    AGENT_FUNCTION_CALL_MODEL: 'openai/bench-model',
    DEFAULT_MODE: 'agent',
    AGENT_MAX_TOOL_CALLS: String(options.searches),
    // Never "sufficient" early: the count limit ends the tool phase after exactly `searches` calls.
    AGENT_MIN_RESULT_CHARS: '100000',
    // The fake search's results are example.com pages nobody serves here: reading them would measure
    // DNS failures. What reading results costs a turn is scenario 15's measurement.
    AGENT_READ_RESULTS: '0',
    AGENT_MAX_EXECUTION_TIME: '120',
    SEARCH_PROVIDER: 'tavily',
    TAVILY_API_KEY: BENCH_TAVILY_KEY,
    TAVILY_BASE_URL: fakes.searchUrl,
    LLM_TIMEOUT_MS: '120000',
    STORE_URL: options.storeUrl,
    LOG_LEVEL: options.logLevel ?? 'silent',
    // Two simulated users send hundreds of turns at once: no per-user cap on running answers.
    MAX_TURNS_PER_USER: '0',
    SLACK_BOT_TOKEN: 'xoxb-bench-token',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fakes.slackUrl,
  };
}

/** Silent, or real pino JSON serialisation at `level` written to /dev/null (logging cost included). */
function benchLogger(level: string | undefined): Logger {
  if (!level || level === 'silent') return silentLogger;
  return createLogger({ level, destination: pino.destination({ dest: '/dev/null', sync: false }) });
}

export async function startBenchScout(options: BenchScoutOptions): Promise<BenchScout> {
  const config = loadConfig(benchEnv(options));
  const logger = benchLogger(options.logLevel);
  const stores =
    options.stores ??
    (await createStores({
      url: config.env.STORE_URL,
      sessionTtlMs: config.env.SESSION_TTL,
      logger,
      ...(options.namespacePrefix ? { namespacePrefix: options.namespacePrefix } : {}),
    }));
  const turns = new Map<string, TurnRecord>();
  const finishers = new Map<string, (error?: string) => void>();
  const finish = (tag: string, error?: string) => finishers.get(tag)?.(error);

  const timings = new ClientTimings();
  const scout = await buildScout({
    config,
    logger,
    stores,
    wrapLlm: timings.wrapLlm,
    wrapSearch: timings.wrapSearch,
  });
  const core: ScoutCore = {
    get locale() {
      return scout.locale;
    },
    async handleMessage(message, sink) {
      const tag = TURN_TAG.exec(message.text)?.[0] ?? '';
      const record = turns.get(tag);
      if (record) record.coreStartAt = epochNow();
      let error: string | undefined = 'the turn ended without a final view';
      // Only the final view is looked at: an error or a cancel there is a failed turn.
      const watched: TurnSink = {
        update: (view) => sink.update(view),
        reply: (text) => {
          error = `answered with a reply: ${say('en', text).slice(0, 80)}`;
          return sink.reply(text);
        },
        done: async (view) => {
          error = view.error ?? (view.cancelled ? 'cancelled' : undefined);
          timings.markFinishing();
          if (record) record.doneAt = epochNow();
          await sink.done(view);
          if (record) record.doneEndAt = epochNow();
        },
      };
      if (sink.confirmPlan) watched.confirmPlan = (plan, signal) => sink.confirmPlan!(plan, signal);
      try {
        await timings.run(tag, () => scout.handleMessage(message, watched));
        finish(tag, error);
      } catch (err) {
        finish(tag, String(err));
      }
    },
    runCommand: (name, args, context) => scout.runCommand(name, args, context),
    cancel: (id) => scout.cancel(id),
    firstDelivery: (key, ttl) => scout.firstDelivery(key, ttl),
    getSettings: (id) => scout.getSettings(id),
  };
  const surface = createSlackSurface({
    core,
    config,
    logger,
    stores,
    port: 0,
    nativeStreaming: options.nativeStreaming,
    editorClock: timings.clock,
  });
  await surface.start();
  const url = `http://127.0.0.1:${surface.port}/slack/events`;
  const onRequest = (message: unknown) => {
    const tag = (message as { request: IncomingMessage }).request.headers[TAG_HEADER];
    const record = typeof tag === 'string' ? turns.get(tag) : undefined;
    if (record && record.receivedAt === undefined) record.receivedAt = epochNow();
  };
  subscribe(SERVER_REQUEST, onRequest);
  const stopWatchingSlack = timings.watchSlackCalls();
  let events = 0;

  return {
    scout,
    stores,
    config,
    surface,
    turns,
    timings,
    async startTurn(tag, index) {
      // A distinct channel per 50 turns and a distinct ts per turn: every turn is a new thread.
      const channel = `C${String(Math.floor(index / 50)).padStart(8, '0')}BENCH`;
      const ts = `${1_767_000_000 + index}.${String(++events).padStart(6, '0')}`;
      const record: TurnRecord = {
        tag,
        thread: `${channel}:${ts}`,
        postedAt: epochNow(),
        ended: Promise.resolve(),
      };
      let timer: NodeJS.Timeout | undefined;
      record.ended = new Promise<void>((resolve) => {
        const done = (error?: string) => {
          if (record.endedAt !== undefined) return;
          clearTimeout(timer);
          record.endedAt = epochNow();
          if (error) record.error = error;
          resolve();
        };
        finishers.set(tag, done);
        timer = setTimeout(() => done('timed out'), TURN_TIMEOUT_MS);
      });
      turns.set(tag, record);
      const body = JSON.stringify({
        token: 'x',
        team_id: TEAM,
        api_app_id: 'A00FAKEAPP01',
        type: 'event_callback',
        event_id: `EvBench${events}${Date.now()}`,
        event_time: Math.floor(Date.now() / 1000),
        authorizations: [{ user_id: BENCH_BOT_USER, is_bot: true }],
        event: {
          type: 'app_mention',
          user: `U${String(index % USERS).padStart(10, '0')}`,
          ts,
          event_ts: ts,
          channel,
          text: `<@${BENCH_BOT_USER}> ${tag} What changed in the web search landscape this week?`,
        },
      });
      const res = await postSigned(url, body, SIGNING_SECRET, { headers: { [TAG_HEADER]: tag } });
      record.ackedAt = epochNow();
      if (res.status !== 200) finish(tag, `event answered HTTP ${res.status}`);
      await res.arrayBuffer();
      return record;
    },
    async close() {
      unsubscribe(SERVER_REQUEST, onRequest);
      stopWatchingSlack();
      await surface.idle();
      await surface.stop();
      await scout.shutdown(2_000);
      if (!options.stores) await stores.close();
    },
  };
}
