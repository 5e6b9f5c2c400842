/**
 * Several Scout "processes" sharing one real Redis (REDIS_URL): each instance has its own Redis
 * connection (its own `Stores`), its own Scout core and its own Slack surface in HTTP mode on its own
 * port; all of them talk to the same fake Slack Web API and — through a timing proxy that records
 * when each model request started and finished — the same fake LLM.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createClient } from '@keyv/redis';
import { afterEach, beforeEach, expect } from 'vitest';
import { createSlackSurface, type SlackSurface } from '../../adapters/slack/slack-surface.js';
import { silentLogger } from '../../src/logger.js';
import { createStores } from '../../src/store/create-stores.js';
import type { Stores } from '../../src/store/types.js';
import { type FakeOpenAI, startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { type FakeSearchServer, startFakeSearchServer } from '../helpers/fake-search-server.js';
import {
  type FakeSlackApi,
  type FakeSlackOptions,
  postSigned,
  startFakeSlackApi,
} from '../helpers/fake-slack-api.js';
import { startTestScout, type TestScout } from '../helpers/scout-harness.js';
import { readThrough } from '../helpers/use-shared-fake.js';
import { scaledChannelLimits } from '../helpers/channel-limits.js';
import {
  EDIT_INTERVAL_MS as SLACK_EDIT_INTERVAL_MS,
  SLACK_CHANNEL_LIMITS,
  SLACK_WORKSPACE_LIMITS,
} from '../../adapters/slack/turn-sink.js';

export const SIGNING_SECRET = 'scale-signing-secret';
export const BOT_USER_ID = 'U00FAKEBOT01';
export const TEAM_ID = 'T00FAKE00AA';
export const CHANNEL = 'C00FAKECHAN1';
/** Short edit interval: the final edit lands soon after the answer. */
const EDIT_INTERVAL_MS = 50;
/** Closing waits this long for running turns before cancelling them. */
const CLOSE_IDLE_MS = 2_000;
/** History lives this long in the test namespace (long enough for any test). */
const SESSION_TTL_MS = 10 * 60_000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One model request as the proxy saw it: wall-clock start and end of the HTTP exchange. */
export interface LlmExchange {
  start: number;
  end: number | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are read freely in assertions
  body: any;
}

/** A loopback relay in front of the fake LLM that records each exchange's wall-clock start and end. */
export interface TimingProxy {
  readonly baseUrl: string;
  readonly exchanges: LlmExchange[];
  close(): Promise<void>;
}

export async function startTimingProxy(target: FakeOpenAI): Promise<TimingProxy> {
  const upstream = new URL(target.origin);
  const exchanges: LlmExchange[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const exchange: LlmExchange = { start: Date.now(), end: undefined, body: undefined };
    exchanges.push(exchange);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      exchange.body = JSON.parse(raw.toString('utf8') || 'null');
      const out = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
          up.on('end', () => {
            exchange.end = Date.now();
          });
        },
      );
      out.on('error', () => res.destroy());
      // A client that gives up (cancel, shutdown) must not leave the upstream request hanging.
      res.on('close', () => out.destroy());
      out.end(raw);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    exchanges,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** One Scout process: its own Redis connection, core and Slack HTTP endpoint. */
export interface Instance {
  readonly name: string;
  readonly stores: Stores;
  readonly h: TestScout;
  readonly surface: SlackSurface;
  /** Posts a signed Events API envelope to this instance, as Slack (or its load balancer) would. */
  post(envelope: Record<string, unknown>, headers?: Record<string, string>): Promise<Response>;
  /** Posts a signed interactivity payload (a button press) to this instance. */
  action(payload: Record<string, unknown>): Promise<Response>;
  close(): Promise<void>;
}

export interface InstanceOptions {
  /** Adjusts what the core and surface see of the instance's store (e.g. a shorter lock lease). */
  wrapStores?: (stores: Stores) => Stores;
  /** Extra environment for this instance (e.g. DEFAULT_MODE). */
  env?: Record<string, string>;
  /** Try Slack's native AI streaming first (default false). */
  nativeStreaming?: boolean;
}

/** Slack's time base shrunk to the cluster's: its second is the instances' edit interval here. */
export const CLUSTER_SCALE = EDIT_INTERVAL_MS / SLACK_EDIT_INTERVAL_MS;

export interface Cluster {
  readonly namespacePrefix: string;
  readonly slack: FakeSlackApi;
  readonly llm: FakeOpenAI;
  readonly search: FakeSearchServer;
  readonly proxy: TimingProxy;
  /** Opens the shared Redis namespace on a new connection (checks Redis answers). */
  openStores(): Promise<Stores>;
  /** Starts an instance on its own new connection; `wrapStores` may adjust what the core sees. */
  startInstance(name: string, options?: InstanceOptions): Promise<Instance>;
  close(): Promise<void>;
}

/**
 * A fresh cluster for every test of the calling `describe`; after each test, no call to the fake
 * Slack API may have broken one of its rules.
 */
export function useCluster(options: ClusterOptions = {}): Cluster {
  let current: Cluster | undefined;
  beforeEach(async () => {
    current = await startCluster(options);
  });
  afterEach(async () => {
    const cluster = current;
    current = undefined;
    try {
      expect(cluster?.slack.violations).toEqual([]);
    } finally {
      await cluster?.close();
    }
  });
  return readThrough(() => current);
}

export interface ClusterOptions {
  /** More of the fake Slack's options (e.g. `methodLimits`: one workspace limit for every instance). */
  slack?: FakeSlackOptions;
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const url = process.env.REDIS_URL;
  if (!url) throw new Error('REDIS_URL is not set');
  const namespacePrefix = `scout-test-${Math.random().toString(36).slice(2, 10)}`;
  const slack = await startFakeSlackApi({ ...options.slack, botUserId: BOT_USER_ID, teamId: TEAM_ID });
  const llm = await startFakeOpenAI();
  const search = await startFakeSearchServer();
  const proxy = await startTimingProxy(llm);
  const instances = new Set<Instance>();

  const openStores = async () => {
    const stores = await createStores({
      url,
      sessionTtlMs: SESSION_TTL_MS,
      logger: silentLogger,
      namespacePrefix,
    });
    // Set but unreachable must fail the suite, not pass it vacuously.
    const reachable = await stores.ping();
    if (!reachable) await stores.close();
    expect(reachable, `Redis at REDIS_URL (${url}) must answer`).toBe(true);
    return stores;
  };

  const startInstance = async (name: string, options: InstanceOptions = {}) => {
    const stores = await openStores();
    const seen = options.wrapStores ? options.wrapStores(stores) : stores;
    const h = await startTestScout({
      stores: seen,
      llm,
      search,
      env: {
        OPENAI_BASE_URL: proxy.baseUrl,
        STORE_URL: url,
        SLACK_BOT_TOKEN: 'xoxb-scale-token',
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: slack.url,
        ...options.env,
      },
    });
    const surface = createSlackSurface({
      core: h.scout,
      config: h.config,
      logger: silentLogger,
      stores: seen,
      port: 0,
      editIntervalMs: EDIT_INTERVAL_MS,
      channelLimits: scaledChannelLimits(SLACK_CHANNEL_LIMITS, CLUSTER_SCALE),
      workspaceLimits: scaledChannelLimits(SLACK_WORKSPACE_LIMITS, CLUSTER_SCALE),
      nativeStreaming: options.nativeStreaming ?? false,
    });
    await surface.start();
    const eventsUrl = `http://127.0.0.1:${surface.port}/slack/events`;
    let closed = false;
    const instance: Instance = {
      name,
      stores,
      h,
      surface,
      action: (payload) =>
        postSigned(
          eventsUrl,
          new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
          SIGNING_SECRET,
          {
            contentType: 'application/x-www-form-urlencoded',
          },
        ),
      post: (envelope, headers) =>
        postSigned(eventsUrl, JSON.stringify(envelope), SIGNING_SECRET, { headers }),
      async close() {
        if (closed) return;
        closed = true;
        instances.delete(instance);
        await surface.stop();
        // A turn stuck by a failing test must not hang the clean-up: shutdown then cancels it.
        await Promise.race([surface.idle(), sleep(CLOSE_IDLE_MS)]);
        await h.close();
        await stores.close();
      },
    };
    instances.add(instance);
    return instance;
  };

  return {
    namespacePrefix,
    slack,
    llm,
    search,
    proxy,
    openStores,
    startInstance,
    async close() {
      await Promise.allSettled([...instances].map((i) => i.close()));
      await deleteNamespace(url, namespacePrefix);
      await proxy.close();
      await Promise.all([llm.close(), search.close(), slack.close()]);
    },
  };
}

/** The two commands inspection and clean-up need. */
interface PlainRedis {
  keys(pattern: string): Promise<string[]>;
  del(keys: string[]): Promise<number>;
}

/** Runs `fn` on a fresh plain Redis connection (inspection and clean-up, outside Scout's stores). */
async function withRedis<T>(url: string, fn: (client: PlainRedis) => Promise<T>): Promise<T> {
  // One attempt: an unreachable Redis fails at once instead of retrying forever.
  const client = createClient({ url, socket: { reconnectStrategy: false } });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

/** Every key in the whole Redis whose name contains `fragment` (KEYS: fine for a test Redis). */
export function keysContaining(url: string, fragment: string): Promise<string[]> {
  return withRedis(url, (client) => client.keys(`*${fragment}*`));
}

/** Removes every key of the test namespace (settings, history, meta, locks, dedupe markers). */
export function deleteNamespace(url: string, prefix: string): Promise<string[]> {
  return withRedis(url, async (client) => {
    const keys = await client.keys(`${prefix}:*`);
    if (keys.length > 0) await client.del(keys);
    return keys;
  });
}

let tsCounter = 0;

/** A unique Slack message ts (`seconds.micros`). */
export function nextTs(): string {
  tsCounter += 1;
  return `${1767300000 + tsCounter}.${String(100000 + tsCounter).padStart(6, '0')}`;
}

/** An `app_mention` envelope; in `threadTs`'s thread when given, else starting its own thread. */
export function mention(
  eventId: string,
  text: string,
  options: { ts?: string; threadTs?: string; user?: string } = {},
): Record<string, unknown> {
  const ts = options.ts ?? nextTs();
  return {
    token: 'x',
    team_id: TEAM_ID,
    api_app_id: 'A00FAKEAPP01',
    type: 'event_callback',
    event_id: eventId,
    event_time: 1,
    authorizations: [{ user_id: BOT_USER_ID, is_bot: true }],
    event: {
      type: 'app_mention',
      user: options.user ?? 'U00FAKEUSER1',
      ts,
      ...(options.threadTs ? { thread_ts: options.threadTs } : {}),
      text: `<@${BOT_USER_ID}> ${text}`,
      channel: CHANNEL,
      event_ts: ts,
    },
  };
}

/** The text of the last user message of a chat.completions request. */
// biome-ignore lint/suspicious/noExplicitAny: request bodies are read freely
export function lastUserText(body: any): string {
  const users = (body?.messages ?? []).filter((m: { role: string }) => m.role === 'user');
  const content = users.at(-1)?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p: { text?: string }) => p.text ?? '').join('');
  return '';
}
