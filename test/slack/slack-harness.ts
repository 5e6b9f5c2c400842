/**
 * The real Scout core + the real Bolt app in HTTP mode + the fake Slack Web API. Requests are signed
 * like Slack signs them and built from the recorded fixtures (../shared/fixtures/slack).
 */
// biome-ignore-all lint/suspicious/noExplicitAny: recorded Slack payloads are open JSON
import { silentLogger } from '../../src/logger.js';
import type { Stores } from '../../src/store/types.js';
import type { ScoutCore } from '../../src/surface.js';
import { createSlackSurface, type SlackSurface } from '../../adapters/slack/slack-surface.js';
import {
  type FakeSlackApi,
  type FakeSlackOptions,
  postSigned,
  startFakeSlackApi,
} from '../helpers/fake-slack-api.js';
import { loadJsonFixture } from '../helpers/fixtures.js';
import { startTestScout, type TestScout } from '../helpers/scout-harness.js';
import { scaledChannelLimits } from '../helpers/channel-limits.js';
import type { ChannelLimits } from '../../src/render/pace-rules.js';
import {
  EDIT_INTERVAL_MS,
  SLACK_CHANNEL_LIMITS,
  SLACK_WORKSPACE_LIMITS,
} from '../../adapters/slack/turn-sink.js';

export const SIGNING_SECRET = 'test-signing-secret';
/** Short edit interval so tests stay fast; the "≤ 1 edit per interval" property is the same. */
export const TEST_EDIT_INTERVAL_MS = 150;

export interface MentionFixture {
  botUserId: string;
  mention: { team_id: string; event: Record<string, any>; [k: string]: any };
  dmRequest: { team_id: string; event: Record<string, any>; [k: string]: any };
  dmMessage: { team_id: string; event: Record<string, any>; [k: string]: any };
}

/** Stands in for slack/dm.json while its suites are skipped (../shared/fixtures absent). */
const skippedEnvelope = { team_id: '', event: {} };
export const dmFixture = () =>
  loadJsonFixture<MentionFixture>('slack/dm.json', {
    botUserId: '',
    mention: skippedEnvelope,
    dmRequest: skippedEnvelope,
    dmMessage: skippedEnvelope,
  });
export const threadFixture = () =>
  loadJsonFixture<{ botUserId: string; mention: any; followUp: any }>('slack/mention-and-thread.json');
export const slashFixture = () =>
  loadJsonFixture<{ slashCommand: Record<string, string> }>('slack/slash-commands.json');

export interface SlackHarness {
  h: TestScout;
  slack: FakeSlackApi;
  surface: SlackSurface;
  url: string;
  /** Posts an Events API envelope (adds a unique event_id unless given). */
  event(envelope: Record<string, any>, headers?: Record<string, string>): Promise<Response>;
  command(fields: Record<string, string>): Promise<Response>;
  action(payload: Record<string, any>): Promise<Response>;
  close(): Promise<void>;
}

let eventCounter = 0;

export async function startSlackHarness(
  options: {
    env?: Record<string, string>;
    nativeStreaming?: boolean;
    botUserId?: string;
    /** Edit interval of the surface (default TEST_EDIT_INTERVAL_MS). */
    editIntervalMs?: number;
    /** Per-channel limits (default Slack's, shrunk by the same factor as the edit interval). */
    channelLimits?: ChannelLimits;
    /** Per-workspace limits (default Slack's, shrunk by the same factor as the edit interval). */
    workspaceLimits?: ChannelLimits;
    /** An open store to use instead of a fresh memory store (the caller closes it). */
    stores?: Stores;
    /** Options of the fake Web API (users' locales, scopes…). */
    fake?: FakeSlackOptions;
    /** The core the surface drives (default the harness's Scout; tests may wrap it to observe turns). */
    core?: (scout: TestScout['scout']) => ScoutCore;
  } = {},
): Promise<SlackHarness> {
  const slack = await startFakeSlackApi({ botUserId: options.botUserId ?? 'U00FAKEBOT01', ...options.fake });
  const h = await startTestScout({
    env: {
      SLACK_BOT_TOKEN: 'xoxb-test-token',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.url,
      ...options.env,
    },
    ...(options.stores ? { stores: options.stores } : {}),
  });
  const scale = (options.editIntervalMs ?? TEST_EDIT_INTERVAL_MS) / EDIT_INTERVAL_MS;
  const surface = createSlackSurface({
    core: options.core ? options.core(h.scout) : h.scout,
    config: h.config,
    logger: silentLogger,
    stores: h.stores,
    port: 0,
    editIntervalMs: options.editIntervalMs ?? TEST_EDIT_INTERVAL_MS,
    channelLimits: options.channelLimits ?? scaledChannelLimits(SLACK_CHANNEL_LIMITS, scale),
    workspaceLimits: options.workspaceLimits ?? scaledChannelLimits(SLACK_WORKSPACE_LIMITS, scale),
    nativeStreaming: options.nativeStreaming ?? false,
  });
  await surface.start();
  const url = `http://127.0.0.1:${surface.port}/slack/events`;
  return {
    h,
    slack,
    surface,
    url,
    event(envelope, headers) {
      const body = JSON.stringify({
        event_id: `Ev${++eventCounter}${Date.now()}`,
        event_time: 1,
        ...envelope,
      });
      return postSigned(url, body, SIGNING_SECRET, { headers });
    },
    command(fields) {
      return postSigned(url, new URLSearchParams(fields).toString(), SIGNING_SECRET, {
        contentType: 'application/x-www-form-urlencoded',
      });
    },
    action(payload) {
      const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
      return postSigned(url, body, SIGNING_SECRET, { contentType: 'application/x-www-form-urlencoded' });
    },
    async close() {
      await surface.idle();
      await surface.stop();
      await h.close();
      await slack.close();
    },
  };
}

/** A block_actions payload for a button on a message. */
export function buttonPayload(
  actionId: string,
  value: string,
  at: { channel: string; ts: string; threadTs?: string; user?: string; team?: string },
): Record<string, any> {
  return {
    type: 'block_actions',
    team: { id: at.team ?? 'T00FAKE00AA', domain: 'fake' },
    user: { id: at.user ?? 'U00FAKEUSER1', username: 'tester', team_id: at.team ?? 'T00FAKE00AA' },
    api_app_id: 'A00FAKEAPP01',
    token: 'x',
    trigger_id: '1.2.3',
    channel: { id: at.channel, name: 'general' },
    container: { type: 'message', message_ts: at.ts, channel_id: at.channel, is_ephemeral: false },
    message: { type: 'message', ts: at.ts, thread_ts: at.threadTs, text: '', user: 'U00FAKEBOT01' },
    actions: [{ type: 'button', action_id: actionId, block_id: 'b', value, action_ts: '1' }],
  };
}

/** A press or a choice on the App Home (a `view` container), as Slack sends it. */
export function homeActionPayload(
  actionId: string,
  action: Record<string, unknown>,
  at: { user?: string; team?: string } = {},
): Record<string, any> {
  const team = at.team ?? 'T00FAKE00AA';
  return {
    type: 'block_actions',
    team: { id: team, domain: 'fake' },
    user: { id: at.user ?? 'U00FAKEUSER1', username: 'tester', team_id: team },
    api_app_id: 'A00FAKEAPP01',
    token: 'x',
    trigger_id: '1.2.3',
    container: { type: 'view', view_id: 'V1' },
    view: { id: 'V1', type: 'home', blocks: [] },
    actions: [{ action_id: actionId, block_id: 'b', action_ts: '1', ...action }],
  };
}

/** All text a user can see in a message: fallback text, markdown/section/context block text. */
export function visibleText(blocks: any[]): string {
  const out: string[] = [];
  const walk = (v: any): void => {
    if (!v || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (const x of v) walk(x);
      return;
    }
    if (typeof v.text === 'string') out.push(v.text);
    for (const [k, x] of Object.entries(v)) if (k !== 'text' || typeof x === 'object') walk(x);
  };
  walk(blocks);
  return out.join('\n');
}

/** The DM thread of slack/dm.json: where its mention is asked, by whom, and Scout's conversation id. */
export function dmThread() {
  const { mention } = dmFixture();
  const channel = mention.event.channel as string;
  const threadTs = mention.event.ts as string;
  return {
    mention,
    channel,
    threadTs,
    asker: mention.event.user as string,
    conversation: `slack:${mention.team_id}:${channel}:${threadTs}`,
  };
}

export type SlackThread = ReturnType<typeof dmThread>;

/** A member of the workspace who did not ask and is not an admin. */
export const OTHER_USER = 'U00OTHERUSR1';

/** Everything the thread shows, message after message. */
export function threadText(s: SlackHarness, thread: SlackThread): string {
  return s.slack
    .messagesIn(thread.channel, thread.threadTs)
    .map((m) => visibleText(m.blocks))
    .join('\n');
}

/**
 * Waits for the thread's message with a `actionId` button; `press` clicks a button on it (that one
 * unless told) as `user` (default: the harness's default user), the way Slack posts a block action.
 */
export async function waitForButton(
  s: SlackHarness,
  thread: SlackThread,
  actionId: string,
  what: string,
  timeoutMs = 5000,
) {
  const find = () =>
    s.slack
      .messagesIn(thread.channel, thread.threadTs)
      .find((m) => JSON.stringify(m.blocks).includes(actionId));
  await s.slack.waitFor(() => Boolean(find()), timeoutMs, what);
  const message = find()!;
  const press = (options: { user?: string; actionId?: string } = {}) =>
    s.action(
      buttonPayload(options.actionId ?? actionId, thread.conversation, {
        channel: thread.channel,
        ts: message.ts,
        threadTs: thread.threadTs,
        ...(options.user ? { user: options.user } : {}),
      }),
    );
  return { message, press };
}
