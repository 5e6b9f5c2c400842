/**
 * Socket Mode test kit: the real core and the real Slack surface (Bolt + Scout's Socket Mode pool of
 * real `@slack/socket-mode` clients) against the fake Web API and the fake Socket Mode endpoint.
 */
import {
  createSlackSurface,
  type SlackSurface,
  type SlackSurfaceOptions,
} from '../../adapters/slack/slack-surface.js';
import { createLogger, type Logger, silentLogger } from '../../src/logger.js';
import { type FakeSlackApi, startFakeSlackApi } from '../helpers/fake-slack-api.js';
import { type FakeSlackSocket, startFakeSlackSocket } from '../helpers/fake-slack-socket.js';
import { startTestScout, type TestScout } from '../helpers/scout-harness.js';
import { DM_CHANNEL, dmEventCallback } from '../helpers/slack-events.js';
import { dmFixture, TEST_EDIT_INTERVAL_MS } from './slack-harness.js';
import { scaledChannelLimits } from '../helpers/channel-limits.js';
import {
  EDIT_INTERVAL_MS,
  SLACK_CHANNEL_LIMITS,
  SLACK_WORKSPACE_LIMITS,
} from '../../adapters/slack/turn-sink.js';

export const APP_TOKEN = 'xapp-1-A00FAKEAPP01-1-socketmodetest';
export const BOT_TOKEN = 'xoxb-test-token';
/** Reconnect tests: short backoff between failed attempts. */
export const FAST_SOCKET = { retryMinMs: 20, retryMaxMs: 200 };

export interface SocketScout {
  slack: FakeSlackApi;
  socket: FakeSlackSocket;
  h: TestScout;
  surface: SlackSurface;
  /** Stops the surface and closes every fake (once). */
  close(): Promise<void>;
}

export interface SocketScoutOptions {
  appToken?: string;
  socketMode?: SlackSurfaceOptions['socketMode'];
  connection?: SlackSurfaceOptions['connection'];
  /** Extra environment (SLACK_SOCKET_CONNECTIONS, SLACK_STARTUP_TIMEOUT, STORE_URL …). */
  env?: Record<string, string>;
  logger?: Logger;
  /** Another instance: the same fakes (default: new ones). */
  fakes?: { slack: FakeSlackApi; socket: FakeSlackSocket };
  start?: boolean;
}

export async function startSocketScout(options: SocketScoutOptions = {}): Promise<SocketScout> {
  const slack = options.fakes?.slack ?? (await startFakeSlackApi());
  const socket = options.fakes?.socket ?? (await startFakeSlackSocket(slack));
  const h = await startTestScout({
    env: {
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_APP_TOKEN: APP_TOKEN,
      SLACK_API_URL: slack.url,
      ...options.env,
    },
  });
  // loadConfig already refuses a non-xapp token; the surface checks again for configs built in code.
  const config = options.appToken
    ? { ...h.config, env: { ...h.config.env, SLACK_APP_TOKEN: options.appToken } }
    : h.config;
  const surface = createSlackSurface({
    core: h.scout,
    config,
    logger: options.logger ?? silentLogger,
    stores: h.stores,
    editIntervalMs: TEST_EDIT_INTERVAL_MS,
    channelLimits: scaledChannelLimits(SLACK_CHANNEL_LIMITS, TEST_EDIT_INTERVAL_MS / EDIT_INTERVAL_MS),
    workspaceLimits: scaledChannelLimits(SLACK_WORKSPACE_LIMITS, TEST_EDIT_INTERVAL_MS / EDIT_INTERVAL_MS),
    nativeStreaming: false,
    ...(options.socketMode ? { socketMode: options.socketMode } : {}),
    ...(options.connection ? { connection: options.connection } : {}),
  });
  let closed: Promise<void> | undefined;
  const scout: SocketScout = {
    slack,
    socket,
    h,
    surface,
    close: () =>
      (closed ??= (async () => {
        await surface.idle();
        await surface.stop();
        await h.close();
        if (!options.fakes) {
          await socket.close();
          await slack.close();
        }
      })()),
  };
  if (options.start !== false) await surface.start();
  return scout;
}

/** A logger whose JSON lines are kept for assertions. */
export function recordingLogger(level = 'debug'): {
  logger: Logger;
  lines: () => Array<Record<string, unknown>>;
} {
  const raw: string[] = [];
  const logger = createLogger({ level, destination: { write: (line: string) => void raw.push(line) } });
  return { logger, lines: () => raw.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

/** pino's numeric levels. */
export const WARN = 40;
export const ERROR = 50;

/** A DM `message` event callback with its own event id (hand-written, see helpers/slack-events.ts). */
export const dmEventPayload = (eventId: string, ts: string, text = 'hello') =>
  dmEventCallback(text, ts, eventId);

export { DM_CHANNEL };

/** An event Scout has no listener for: acked, no turn started (traffic for connection tests). */
export const reactionPayload = (eventId: string) => ({
  ...dmEventPayload(eventId, '1767376988.000100'),
  event: { type: 'reaction_added', user: 'U00FAKEUSER1', reaction: 'eyes', event_ts: '1767376988.000200' },
});

/** The recorded mention from `../shared/fixtures` (tests using it run under `itWithShared`). */
export const mentionPayload = (eventId: string, text?: string) => {
  const { mention } = dmFixture();
  return {
    ...mention,
    event_id: eventId,
    event_time: 1767376988,
    ...(text ? { event: { ...mention.event, text } } : {}),
  };
};
