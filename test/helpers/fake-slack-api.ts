/**
 * A fake Slack Web API on loopback for tests and benchmarks. The real `@slack/web-api` client (through
 * Bolt's `clientOptions.slackApiUrl`) talks to it. It records every call with its parsed arguments,
 * keeps the messages it "posted", and VALIDATES each call against Slack's documented and observed
 * limits (shared/PLATFORMS.md), answering `{ ok: false, error }` exactly where Slack would — so a test
 * can assert that no call went over a limit instead of trusting the renderer.
 */
// biome-ignore-all lint/suspicious/noExplicitAny: Slack Web API arguments and answers are open JSON, checked the way Slack checks them
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// ── Slack's limits (shared/PLATFORMS.md), independent of the adapter's own constants ──────────────
const MAX_BLOCKS = 50;
const MAX_VIEW_BLOCKS = 100;
const MAX_SECTION_TEXT = 3000;
const MAX_HEADER_TEXT = 150;
const MAX_CONTEXT_ELEMENTS = 10;
const MAX_ACTIONS_ELEMENTS = 25;
const MAX_BUTTON_TEXT = 75;
const MAX_BUTTON_VALUE = 2000;
const MAX_MARKDOWN_TOTAL = 12_000;
const MAX_UPDATE_TEXT = 4000;
const MAX_POST_TEXT = 40_000;
const MAX_CONTAINER_TITLE = 150;
const MAX_CONTAINER_CHILDREN = 10;
/** Observed: whole messages are rejected (`msg_blocks_too_long`) near this many characters. */
const MAX_MESSAGE_CHARS = 13_200;
/**
 * Slack's Tier 3 (chat.update, chat.delete …): "50+ per minute", counted per workspace and method.
 * A test enables it with `methodLimits` (scaled to its own time base).
 */
export const SLACK_TIER_3: MethodLimit = { max: 50, perMs: 60_000 };
/** JSON-encoded form fields (the WebClient stringifies objects); everything else stays a string. */
const JSON_FIELDS = new Set([
  'blocks',
  'attachments',
  'chunks',
  'view',
  'metadata',
  'prompts',
  'loading_messages',
]);

export interface RecordedCall {
  method: string;
  args: Record<string, any>;
  at: number;
  /** What the fake answered (`ok`, `error`, …); `status: 429` for rate-limited answers. */
  response: Record<string, any>;
  status: number;
  /** The token the call carried (`Authorization: Bearer …` or a `token` field); never an app's real one. */
  token?: string;
}

export interface Violation {
  method: string;
  error: string;
  detail: string;
}

export interface FakeMessage {
  channel: string;
  ts: string;
  threadTs?: string;
  text: string;
  blocks: any[];
  /** `Date.now()` of every chat.update of this message. */
  edits: number[];
  streaming: boolean;
  /** Markdown appended through the streaming methods. */
  streamedText: string;
  chunks: any[];
  deleted: boolean;
  /** Author: the bot for what Scout posted; a person for `addUserMessage`. */
  user?: string;
  botId?: string;
  /** Slack file objects attached (as `files` in events and conversations.replies). */
  files?: Record<string, unknown>[];
}

/** A file Slack hosts (`addFile`): served at `url_private` to a bearer of the bot token only. */
export interface FakeFile {
  id: string;
  name: string;
  mimetype: string;
  bytes: Uint8Array;
  /** What Slack reports as `size` (defaults to the byte count; tests may claim more). */
  size?: number;
  /** Answer the download with a redirect to this URL instead (a file host that points elsewhere). */
  redirectTo?: string;
}

/** At most `max` calls of one method in any `perMs` milliseconds, per workspace. */
export interface MethodLimit {
  max: number;
  perMs: number;
}

export interface FakeSlackOptions {
  botUserId?: string;
  botId?: string;
  teamId?: string;
  /** Users' locales for users.info (default en-US). */
  userLocales?: Record<string, string>;
  /** Users' display names for users.info (default `user-<id>`). */
  userNames?: Record<string, string>;
  /**
   * Scopes the bot token was granted (default: all). Reading history without `channels:history`
   * (public), `groups:history` (private), `im:history` / `mpim:history` is `missing_scope`, as on Slack.
   */
  scopes?: string[];
  /**
   * Per-method rate limits enforced the way Slack enforces its tiers: per workspace (one bot token is
   * one workspace) and method, over a sliding window. A call over the limit is answered HTTP 429
   * with `Retry-After` in whole seconds (when the window has room again, rounded up, as Slack
   * answers) and does not count. Default: none (every call is answered).
   */
  methodLimits?: Record<string, MethodLimit>;
}

export interface FakeSlackApi {
  /** Web API base for `slackApiUrl` (ends with `/api/`). */
  readonly url: string;
  readonly calls: RecordedCall[];
  readonly violations: Violation[];
  readonly messages: Map<string, FakeMessage>;
  /** Switches. */
  streamingError: string | null;
  /** When set, chat.postEphemeral fails with this error (`not_in_channel`: Scout was never invited). */
  ephemeralError: string | null;
  rejectContainers: boolean;
  /**
   * Socket Mode: apps.connections.open answers with the URL this returns (set by
   * `startFakeSlackSocket`); null answers the call as Slack does for an app without Socket Mode.
   */
  connectionsOpen: (() => string) | null;
  /** When set, apps.connections.open fails with this error (`invalid_auth`: the app token was revoked). */
  appTokenError: string | null;
  /** Channels where every message write answers `not_in_channel` (Scout may not post there). */
  refusedChannels: Set<string>;
  /**
   * Channels and their members, for `users.conversations` (App Home lists a user's channels). A
   * private channel is listed only when the bot is a member too, as Slack does for a bot token.
   */
  channels: Map<string, { name: string; members: Set<string>; isPrivate?: boolean; isMpim?: boolean }>;
  /**
   * assistant.search.context (the Real-time Search API): the action_tokens Slack put on events, each
   * naming the user it searches as. A bot-token call needs one of them; a user token (`xoxp-`) in
   * `userTokens` searches as its own user without one.
   */
  actionTokens: Map<string, string>;
  userTokens: Map<string, string>;
  /** Answers the next `times` calls of `method` with HTTP 429 and `Retry-After: retryAfterSec`. */
  rateLimit(method: string, times: number, retryAfterSec?: number): void;
  /** Answers the next `times` calls of `method` with HTTP `status` (default 503: Slack is having a bad day). */
  failNext(method: string, times: number, status?: number): void;
  callsTo(method: string): RecordedCall[];
  /** A message a person wrote (not through the API); returns its ts. */
  addUserMessage(message: {
    channel: string;
    user: string;
    text: string;
    threadTs?: string;
    botId?: string;
    files?: Record<string, unknown>[];
  }): string;
  /** Hosts a file; returns the Slack file object (`url_private` on this fake's origin). */
  addFile(file: FakeFile): Record<string, unknown>;
  /** Every GET of a hosted file: its path and the bearer token it carried. */
  readonly downloads: { path: string; token: string }[];
  /** Messages in a thread (or channel when threadTs is omitted), in posting order, deleted ones left out. */
  messagesIn(channel: string, threadTs?: string): FakeMessage[];
  /**
   * The assistant status a thread shows now ('' for none), as Slack documents it: set by
   * `assistant.threads.setStatus`, cleared by an empty status or when the app sends a reply (a
   * message posted or a stream started in the thread). The 2-minute timeout is not modelled.
   */
  threadStatus(channel: string, threadTs: string): string;
  /** The shortest gap between two edits of one message, over all messages (Infinity when none). */
  minEditGapMs(): number;
  /** Resolves when `predicate` holds, polling every 10 ms; rejects after `timeoutMs`. */
  waitFor(predicate: () => boolean, timeoutMs?: number, what?: string): Promise<void>;
  /**
   * Calls `listener` right after every call the fake answered (its messages already changed), so a
   * test can see every state the messages go through; returns the function that stops it.
   */
  onCall(listener: () => void): () => void;
  close(): Promise<void>;
}

/** Headers Slack signs requests with: `v0=` HMAC-SHA256 of `v0:{timestamp}:{body}`. */
export function signSlackRequest(
  body: string,
  secret: string,
  timestamp: number = Math.floor(Date.now() / 1000),
): { 'X-Slack-Signature': string; 'X-Slack-Request-Timestamp': string } {
  const signature = createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex');
  return { 'X-Slack-Signature': `v0=${signature}`, 'X-Slack-Request-Timestamp': String(timestamp) };
}

/** Posts a signed request to a Bolt HTTP endpoint, as Slack does. */
export async function postSigned(
  url: string,
  body: string,
  secret: string,
  options: { contentType?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': options.contentType ?? 'application/json',
      ...signSlackRequest(body, secret),
      ...options.headers,
    },
    body,
  });
}

function blockChars(block: any): number {
  let n = 0;
  const walk = (v: unknown): void => {
    if (typeof v === 'string') n += v.length;
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) if (k === 'text' || typeof x === 'object') walk(x);
    }
  };
  walk(block);
  return n;
}

/** Returns the first violation of a block list, or undefined. */
function checkBlocks(blocks: any[], max: number, rejectContainers: boolean): Violation | undefined {
  const bad = (error: string, detail: string) => ({ method: '', error, detail });
  if (!Array.isArray(blocks)) return bad('invalid_blocks_format', 'blocks is not an array');
  if (blocks.length > max) return bad('invalid_blocks', `${blocks.length} blocks > ${max}`);
  let markdown = 0;
  const checkOne = (b: any, inContainer: boolean): Violation | undefined => {
    switch (b?.type) {
      case 'section':
        if (b.text && b.text.text.length > MAX_SECTION_TEXT)
          return bad('invalid_blocks', `section text ${b.text.text.length} > ${MAX_SECTION_TEXT}`);
        if (!b.text && !b.fields) return bad('invalid_blocks', 'section without text');
        return;
      case 'header':
        if (b.text?.text.length > MAX_HEADER_TEXT) return bad('invalid_blocks', 'header text too long');
        return;
      case 'context':
        if (!b.elements?.length || b.elements.length > MAX_CONTEXT_ELEMENTS)
          return bad('invalid_blocks', `context has ${b.elements?.length} elements`);
        for (const e of b.elements)
          if (e.text !== undefined && (e.text.length === 0 || e.text.length > MAX_SECTION_TEXT))
            return bad('invalid_blocks', 'context element text length');
        return;
      case 'actions':
        if (!b.elements?.length || b.elements.length > MAX_ACTIONS_ELEMENTS)
          return bad('invalid_blocks', `actions has ${b.elements?.length} elements`);
        for (const e of b.elements) {
          if (e.type !== 'button') continue;
          if (!e.text?.text || e.text.text.length > MAX_BUTTON_TEXT)
            return bad('invalid_blocks', 'button text');
          if (e.value !== undefined && String(e.value).length > MAX_BUTTON_VALUE)
            return bad('invalid_blocks', 'button value too long');
        }
        return;
      case 'markdown':
        if (inContainer) return bad('invalid_blocks', 'markdown block inside a container');
        markdown += String(b.text ?? '').length;
        if (!b.text) return bad('invalid_blocks', 'empty markdown block');
        return;
      case 'container': {
        if (rejectContainers) return bad('invalid_blocks', 'unsupported block type: container');
        if (inContainer) return bad('invalid_blocks', 'nested container');
        if (!b.title?.text || b.title.text.length > MAX_CONTAINER_TITLE)
          return bad('invalid_blocks', `container title ${b.title?.text?.length}`);
        if (!b.child_blocks?.length || b.child_blocks.length > MAX_CONTAINER_CHILDREN)
          return bad('invalid_blocks', `container has ${b.child_blocks?.length} children`);
        for (const c of b.child_blocks) {
          const v = checkOne(c, true);
          if (v) return v;
        }
        return;
      }
      case 'divider':
      case 'rich_text':
      case 'image':
      case 'input':
      case 'context_actions':
      case 'plan':
      case 'task_card':
        return;
      default:
        return bad('invalid_blocks', `unknown block type ${b?.type}`);
    }
  };
  for (const b of blocks) {
    const v = checkOne(b, false);
    if (v) return v;
  }
  if (markdown > MAX_MARKDOWN_TOTAL)
    return bad('invalid_blocks', `markdown total ${markdown} > ${MAX_MARKDOWN_TOTAL}`);
  return undefined;
}

/** An unpaired UTF-16 surrogate: a high one not followed by a low one, or a low one alone. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Every string inside a call's arguments. */
function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) stringsOf(v, out);
  return out;
}

/** Methods that write a message into a channel (refused in `refusedChannels`). */
const WRITE_METHODS = new Set([
  'chat.postMessage',
  'chat.update',
  'chat.delete',
  'chat.postEphemeral',
  'chat.startStream',
  'chat.appendStream',
  'chat.stopStream',
]);

export async function startFakeSlackApi(options: FakeSlackOptions = {}): Promise<FakeSlackApi> {
  const botUserId = options.botUserId ?? 'U00FAKEBOT01';
  const botId = options.botId ?? 'B00FAKEBOT01';
  const teamId = options.teamId ?? 'T00FAKE00AA';
  const calls: RecordedCall[] = [];
  const violations: Violation[] = [];
  const messages = new Map<string, FakeMessage>();
  const limited = new Map<string, { times: number; retryAfter: number }>();
  /** When each workspace's recent calls of a tiered method were answered, oldest first. */
  const tierWindows = new Map<string, number[]>();
  const failing = new Map<string, { times: number; status: number }>();
  const files = new Map<string, FakeFile>();
  const downloads: { path: string; token: string }[] = [];
  const listeners = new Set<() => void>();
  /** The assistant status each thread shows (`channel:thread_ts`). */
  const statuses = new Map<string, string>();
  let counter = 0;
  const base = Math.floor(Date.now() / 1000);
  const nextTs = () => `${base}.${String(++counter).padStart(6, '0')}`;

  /** The one place a new message is stored: Scout's posts and people's messages alike. */
  const record = (channel: string, threadTs: string | undefined, fields: Partial<FakeMessage>): string => {
    const ts = nextTs();
    messages.set(`${channel}:${ts}`, {
      channel,
      ts,
      threadTs,
      text: '',
      blocks: [],
      edits: [],
      streaming: false,
      streamedText: '',
      chunks: [],
      deleted: false,
      ...fields,
    });
    return ts;
  };

  const api: FakeSlackApi = {
    url: '',
    calls,
    violations,
    messages,
    streamingError: null,
    ephemeralError: null,
    refusedChannels: new Set(),
    channels: new Map(),
    actionTokens: new Map(),
    userTokens: new Map(),
    rejectContainers: false,
    connectionsOpen: null,
    appTokenError: null,
    rateLimit(method, times, retryAfterSec = 1) {
      limited.set(method, { times, retryAfter: retryAfterSec });
    },
    failNext(method, times, status = 503) {
      failing.set(method, { times, status });
    },
    callsTo: (method) => calls.filter((c) => c.method === method),
    downloads,
    addUserMessage(message) {
      return record(message.channel, message.threadTs, {
        text: message.text,
        user: message.user,
        ...(message.botId ? { botId: message.botId } : {}),
        ...(message.files ? { files: message.files } : {}),
      });
    },
    addFile(file) {
      files.set(file.id, file);
      const origin = api.url.replace(/\/api\/$/, '');
      const url = `${origin}/files-pri/${teamId}-${file.id}/${encodeURIComponent(file.name)}`;
      return {
        id: file.id,
        name: file.name,
        title: file.name,
        mimetype: file.mimetype,
        filetype: file.name.split('.').pop(),
        size: file.size ?? file.bytes.byteLength,
        url_private: url,
        url_private_download: `${url}?download=1`,
      };
    },
    threadStatus: (channel, threadTs) => statuses.get(`${channel}:${threadTs}`) ?? '',
    messagesIn: (channel, threadTs) =>
      [...messages.values()].filter(
        (m) => !m.deleted && m.channel === channel && (threadTs === undefined || m.threadTs === threadTs),
      ),
    minEditGapMs() {
      let min = Number.POSITIVE_INFINITY;
      for (const m of messages.values()) {
        for (let i = 1; i < m.edits.length; i++) min = Math.min(min, m.edits[i]! - m.edits[i - 1]!);
      }
      return min;
    },
    async waitFor(predicate, timeoutMs = 5000, what = 'condition') {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`fake Slack: timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    onCall(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };

  /** Validates the message content of post/update/stop calls; returns the Slack error or undefined. */
  function checkMessage(method: string, args: Record<string, any>): Violation | undefined {
    const text = typeof args.text === 'string' ? args.text : '';
    if (method === 'chat.update' && text.length > MAX_UPDATE_TEXT)
      return { method, error: 'msg_too_long', detail: `text ${text.length} > ${MAX_UPDATE_TEXT}` };
    if (text.length > MAX_POST_TEXT) return { method, error: 'msg_too_long', detail: `text ${text.length}` };
    if (typeof args.markdown_text === 'string' && args.markdown_text.length > MAX_MARKDOWN_TOTAL)
      return { method, error: 'msg_too_long', detail: `markdown_text ${args.markdown_text.length}` };
    if (args.blocks !== undefined) {
      const v = checkBlocks(args.blocks, MAX_BLOCKS, api.rejectContainers);
      if (v) return { ...v, method };
      const total = text.length + (args.blocks as any[]).reduce((n, b) => n + blockChars(b), 0);
      if (total > MAX_MESSAGE_CHARS)
        return {
          method,
          error: 'msg_blocks_too_long',
          detail: `message ${total} chars > ${MAX_MESSAGE_CHARS}`,
        };
    }
    return undefined;
  }

  function handle(method: string, args: Record<string, any>, token: string): Record<string, any> {
    const fail = (v: Violation) => {
      violations.push(v);
      return { ok: false, error: v.error };
    };
    /** Records a new message of the bot (posted or stream-started) and returns its ts. */
    const create = (args: any, fields: Partial<FakeMessage>): string => {
      // A reply in a thread clears the app's status there (Slack: "cleared automatically when the
      // app sends a reply").
      if (args.thread_ts) statuses.delete(`${args.channel}:${args.thread_ts}`);
      return record(args.channel, args.thread_ts, { user: botUserId, botId, ...fields });
    };
    const stored = (channel: string, ts: string) => {
      const m = messages.get(`${channel}:${ts}`);
      return m && !m.deleted ? m : undefined;
    };
    // A channel Scout may read but not post in: every write there is refused, as Slack does.
    if (WRITE_METHODS.has(method) && api.refusedChannels.has(String(args.channel)))
      return { ok: false, error: 'not_in_channel' };
    // An unpaired surrogate (a JSON `\ud83d` escape) is not text: no message may carry one.
    const broken = WRITE_METHODS.has(method)
      ? stringsOf(args).find((t) => LONE_SURROGATE.test(t))
      : undefined;
    if (broken !== undefined)
      return fail({
        method,
        error: 'invalid_arguments',
        detail: `unpaired surrogate in ${JSON.stringify(broken.slice(0, 40))}`,
      });
    switch (method) {
      case 'apps.connections.open':
        // Needs the app-level token (`connections:write`); a bot token is refused as by Slack.
        if (!token.startsWith('xapp-')) return { ok: false, error: 'not_allowed_token_type' };
        if (api.appTokenError) return { ok: false, error: api.appTokenError };
        if (!api.connectionsOpen) return { ok: false, error: 'fake_socket_not_started' };
        return { ok: true, url: api.connectionsOpen() };
      case 'auth.test':
        return {
          ok: true,
          url: 'https://fake.slack.test/',
          team: 'Fake',
          user: 'scout',
          team_id: teamId,
          user_id: botUserId,
          bot_id: botId,
          is_enterprise_install: false,
        };
      case 'chat.postMessage': {
        if (!args.channel) return fail({ method, error: 'channel_not_found', detail: 'no channel' });
        if (!args.text && !args.blocks && !args.markdown_text)
          return fail({ method, error: 'no_text', detail: '' });
        const v = checkMessage(method, args);
        if (v) return fail(v);
        const ts = create(args, { text: args.text ?? args.markdown_text ?? '', blocks: args.blocks ?? [] });
        return { ok: true, channel: args.channel, ts, message: { text: args.text, ts, bot_id: botId } };
      }
      case 'chat.update': {
        const m = stored(args.channel, args.ts);
        if (!m) return fail({ method, error: 'message_not_found', detail: `${args.channel}:${args.ts}` });
        const v = checkMessage(method, args);
        if (v) return fail(v);
        m.edits.push(Date.now());
        if (args.text !== undefined) m.text = args.text;
        if (args.blocks !== undefined) m.blocks = args.blocks;
        if (args.markdown_text !== undefined) m.text = args.markdown_text;
        return { ok: true, channel: m.channel, ts: m.ts, text: m.text };
      }
      case 'chat.delete': {
        const m = stored(args.channel, args.ts);
        if (!m) return fail({ method, error: 'message_not_found', detail: '' });
        m.deleted = true;
        return { ok: true, channel: m.channel, ts: m.ts };
      }
      case 'chat.postEphemeral': {
        if (api.ephemeralError) return { ok: false, error: api.ephemeralError };
        if (!args.user || !args.channel)
          return fail({ method, error: 'invalid_arguments', detail: 'user/channel' });
        const v = checkMessage(method, args);
        if (v) return fail(v);
        return { ok: true, message_ts: nextTs() };
      }
      case 'chat.startStream': {
        if (api.streamingError) return { ok: false, error: api.streamingError };
        if (!args.thread_ts)
          return fail({ method, error: 'invalid_arguments', detail: 'thread_ts required' });
        if (!String(args.channel).startsWith('D') && (!args.recipient_user_id || !args.recipient_team_id))
          return fail({
            method,
            error: 'invalid_arguments',
            detail: 'recipient_user_id/team_id required in channels',
          });
        const v = checkMessage(method, args);
        if (v) return fail(v);
        // The stream opens with whatever it is given: `markdown_text` and the chunks' text alike.
        const chunks: any[] = args.chunks ?? [];
        const opening = chunks.filter((c) => c.type === 'markdown_text').map((c) => String(c.text));
        const ts = create(args, {
          streaming: true,
          streamedText: (args.markdown_text ?? '') + opening.join(''),
          chunks: [...chunks],
        });
        return { ok: true, channel: args.channel, ts };
      }
      case 'chat.appendStream':
      case 'chat.stopStream': {
        if (api.streamingError) return { ok: false, error: api.streamingError };
        const m = stored(args.channel, args.ts);
        if (!m) return fail({ method, error: 'message_not_found', detail: '' });
        if (!m.streaming) return fail({ method, error: 'message_not_in_streaming_state', detail: m.ts });
        const v = checkMessage(method, args);
        if (v) return fail(v);
        if (method === 'chat.appendStream' && !args.markdown_text && !args.chunks?.length)
          return fail({ method, error: 'invalid_arguments', detail: 'markdown_text or chunks required' });
        m.streamedText += args.markdown_text ?? '';
        for (const c of args.chunks ?? []) {
          m.chunks.push(c);
          if (c.type === 'markdown_text') m.streamedText += c.text;
        }
        if (method === 'chat.stopStream') {
          m.streaming = false;
          m.text = m.streamedText;
          if (args.blocks) m.blocks = args.blocks;
        }
        return { ok: true, channel: m.channel, ts: m.ts };
      }
      case 'views.publish': {
        const v = checkBlocks(args.view?.blocks ?? [], MAX_VIEW_BLOCKS, false);
        if (v) return fail({ ...v, method });
        return { ok: true, view: { id: `V${++counter}`, ...args.view } };
      }
      case 'assistant.threads.setStatus':
        if (!args.channel_id || !args.thread_ts)
          return fail({ method, error: 'invalid_arguments', detail: 'channel_id/thread_ts required' });
        statuses.set(`${args.channel_id}:${args.thread_ts}`, String(args.status ?? ''));
        return { ok: true };
      case 'assistant.threads.setSuggestedPrompts':
      case 'assistant.threads.setTitle':
      case 'reactions.add':
      case 'reactions.remove':
        return { ok: true };
      case 'conversations.info':
        return {
          ok: true,
          channel: {
            id: args.channel,
            name: String(args.channel).startsWith('D') ? undefined : 'general',
            is_im: String(args.channel).startsWith('D'),
            is_mpim: api.channels.get(args.channel)?.isMpim === true,
            is_private: api.channels.get(args.channel)?.isPrivate === true,
            is_channel: !String(args.channel).startsWith('D') && !api.channels.get(args.channel)?.isMpim,
          },
        };
      case 'conversations.replies':
        return replies(args);
      case 'assistant.search.context':
        return searchContext(args, token);
      case 'users.conversations':
        return userConversations(args);
      case 'users.info':
        return {
          ok: true,
          user: {
            id: args.user,
            name: `user-${args.user}`,
            real_name: `Real ${args.user}`,
            // Slack's display_name is often empty; the real name is then what people see.
            profile: { display_name: options.userNames?.[args.user] ?? '', real_name: `Real ${args.user}` },
            // Slack sends the locale only when asked (`include_locale=true`).
            ...(String(args.include_locale) === 'true'
              ? { locale: options.userLocales?.[args.user] ?? 'en-US' }
              : {}),
            tz: 'UTC',
          },
        };
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  /**
   * users.conversations with a bot token and `user`: the user's public channels, and private ones only
   * where the bot is a member too; `types` filters (default public only, as Slack); `limit` per page
   * (Slack caps it at 1000) with a cursor. Needs `channels:read` / `groups:read`.
   */
  function userConversations(args: Record<string, string | undefined>): Record<string, unknown> {
    const types = (args.types ?? 'public_channel').split(',');
    for (const [type, scope] of [
      ['public_channel', 'channels:read'],
      ['private_channel', 'groups:read'],
    ] as const)
      if (types.includes(type) && options.scopes && !options.scopes.includes(scope))
        return { ok: false, error: 'missing_scope', needed: scope };
    const user = args.user;
    if (user && !/^[UW][A-Z0-9]+$/.test(user)) return { ok: false, error: 'user_not_found' };
    const limit = Math.min(Number(args.limit ?? 100) || 100, 1000);
    const all = [...api.channels.entries()].filter(
      ([, c]) =>
        types.includes(c.isPrivate ? 'private_channel' : 'public_channel') &&
        (!user || c.members.has(user)) &&
        (!c.isPrivate || c.members.has(botUserId)),
    );
    const start = Number(args.cursor ?? 0) || 0;
    const page = all.slice(start, start + limit);
    const next = start + limit < all.length ? String(start + limit) : '';
    return {
      ok: true,
      channels: page.map(([id, c]) => ({ id, name: c.name, is_channel: true, is_private: !!c.isPrivate })),
      response_metadata: { next_cursor: next },
    };
  }

  /** The kind of a conversation as search's `channel_types` name it. */
  function channelType(channel: string): 'public_channel' | 'private_channel' | 'mpim' | 'im' {
    if (channel.startsWith('D')) return 'im';
    const c = api.channels.get(channel);
    if (c?.isMpim) return 'mpim';
    return c?.isPrivate || channel.startsWith('G') ? 'private_channel' : 'public_channel';
  }

  /**
   * assistant.search.context as Slack documents it: as the user named by the `action_token` (bot
   * token) or by the user token; each channel type and content type needs its `search:read.*` scope
   * (`missing_scope` with `needed`); only conversations that user can see come back (public channels
   * to everyone, private ones, group DMs and DMs to their members), only of the `channel_types` asked
   * (default public); `limit` at most 20; `before`/`after` in Unix seconds; a cursor pages.
   */
  function searchContext(args: Record<string, any>, token: string): Record<string, unknown> {
    if (!args.query || String(args.query).trim() === '') return { ok: false, error: 'invalid_arguments' };
    let user: string | undefined;
    if (token.startsWith('xoxp-')) user = api.userTokens.get(token);
    else if (token.startsWith('xoxb-')) {
      if (!args.action_token) return { ok: false, error: 'invalid_action_token' };
      user = api.actionTokens.get(String(args.action_token));
      if (!user) return { ok: false, error: 'invalid_action_token' };
    }
    if (!user) return { ok: false, error: 'invalid_auth' };
    const types = String(args.channel_types ?? 'public_channel')
      .split(',')
      .map((t) => t.trim());
    const contents = String(args.content_types ?? 'messages')
      .split(',')
      .map((t) => t.trim());
    const scopeOf: Record<string, string> = {
      public_channel: 'search:read.public',
      private_channel: 'search:read.private',
      mpim: 'search:read.mpim',
      im: 'search:read.im',
      files: 'search:read.files',
    };
    for (const t of [...types, ...contents.filter((c) => c === 'files')]) {
      const needed = scopeOf[t];
      if (!needed) return { ok: false, error: 'invalid_arguments' };
      if (options.scopes && !options.scopes.includes(needed))
        return { ok: false, error: 'missing_scope', needed };
    }
    const limit = Number(args.limit ?? 20);
    if (!Number.isInteger(limit) || limit < 1 || limit > 20) return { ok: false, error: 'invalid_limit' };
    const canSee = (channel: string) => {
      const type = channelType(channel);
      if (type === 'public_channel') return true;
      return api.channels.get(channel)?.members.has(user!) === true;
    };
    const terms = String(args.query)
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((t) => t.length >= 3);
    const after = args.after !== undefined ? Number(args.after) : undefined;
    const before = args.before !== undefined ? Number(args.before) : undefined;
    const found = [...messages.values()]
      .filter((m) => !m.deleted && m.user && m.user !== botUserId && !m.botId)
      .filter((m) => types.includes(channelType(m.channel)) && canSee(m.channel))
      .filter(
        (m) =>
          (after === undefined || Number(m.ts) > after) && (before === undefined || Number(m.ts) < before),
      )
      .map((m) => ({ m, score: terms.filter((t) => m.text.toLowerCase().includes(t)).length }))
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score || (a.m.ts < b.m.ts ? 1 : -1));
    const start = args.cursor ? Number(Buffer.from(String(args.cursor), 'base64').toString()) : 0;
    const page = found.slice(start, start + limit);
    const next = start + limit < found.length ? Buffer.from(String(start + limit)).toString('base64') : '';
    return {
      ok: true,
      results: {
        messages: contents.includes('messages')
          ? page.map(({ m }) => ({
              author_user_id: m.user,
              author_name: options.userNames?.[m.user!] ?? `user-${m.user}`,
              team_id: teamId,
              channel_id: m.channel,
              channel_name: api.channels.get(m.channel)?.name ?? m.channel,
              message_ts: m.ts,
              content: m.text,
              is_author_bot: false,
              permalink: `https://fake.slack.test/archives/${m.channel}/p${m.ts.replace('.', '')}`,
            }))
          : [],
      },
      response_metadata: { next_cursor: next },
    };
  }

  /** The history scope each channel kind needs, by id prefix (C public, G private, D DM). */
  function historyScope(channel: string): string {
    if (channel.startsWith('D')) return 'im:history';
    if (channel.startsWith('G')) return 'groups:history';
    return 'channels:history';
  }

  function toApiMessage(m: FakeMessage): Record<string, unknown> {
    return {
      type: 'message',
      ts: m.ts,
      ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
      text: m.text || m.streamedText,
      ...(m.user ? { user: m.user } : {}),
      ...(m.botId ? { bot_id: m.botId } : {}),
      ...(m.files ? { files: m.files } : {}),
    };
  }

  /**
   * conversations.replies as Slack answers it: the parent first on EVERY page (whatever `oldest`
   * says), then the replies in time order within `oldest`/`latest` (exclusive unless `inclusive`),
   * at most `limit` (Slack caps it at 1000) per page with a cursor.
   */
  function replies(args: Record<string, string | undefined>): Record<string, unknown> {
    if (!args.channel) return { ok: false, error: 'channel_not_found' };
    if (!args.ts) return { ok: false, error: 'invalid_arguments' };
    const needed = historyScope(String(args.channel));
    if (options.scopes && !options.scopes.includes(needed))
      return { ok: false, error: 'missing_scope', needed };
    const parent = messages.get(`${args.channel}:${args.ts}`);
    if (!parent || parent.deleted) return { ok: false, error: 'thread_not_found' };
    const inclusive = args.inclusive === 'true' || args.inclusive === '1';
    const after = (ts: string) => !args.oldest || (inclusive ? ts >= args.oldest : ts > args.oldest);
    const before = (ts: string) => !args.latest || (inclusive ? ts <= args.latest : ts < args.latest);
    const thread = [...messages.values()]
      .filter((m) => !m.deleted && m.channel === args.channel && m.threadTs === args.ts && m.ts !== args.ts)
      .filter((m) => after(m.ts) && before(m.ts))
      .sort((a, b) => (a.ts < b.ts ? -1 : 1));
    const limit = Math.min(Math.max(Number(args.limit ?? 1000) || 1000, 1), 1000);
    const start = args.cursor ? Number(Buffer.from(String(args.cursor), 'base64').toString()) : 0;
    const page = thread.slice(start, start + limit);
    const next = start + limit < thread.length ? Buffer.from(String(start + limit)).toString('base64') : '';
    return {
      ok: true,
      messages: [toApiMessage(parent), ...page.map(toApiMessage)],
      has_more: next !== '',
      response_metadata: { next_cursor: next },
    };
  }

  /**
   * 0 when a call of `method` by `token`'s workspace is within its tier (and counts it), else how
   * long until the window has room again.
   */
  function tierWaitMs(method: string, token: string): number {
    const limit = options.methodLimits?.[method];
    if (!limit) return 0;
    const key = `${token}\n${method}`;
    const window = tierWindows.get(key) ?? [];
    tierWindows.set(key, window);
    const now = Date.now();
    while (window.length > 0 && window[0]! <= now - limit.perMs) window.shift();
    if (window.length >= limit.max) return Math.max(1, window[0]! + limit.perMs - now);
    window.push(now);
    return 0;
  }

  /** url_private: only with the bot token, as Slack serves files (anything else gets the sign-in redirect). */
  function serveFile(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '').replace(/\?.*$/, '');
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    downloads.push({ path, token });
    const id = path.split('/')[2]?.split('-').pop() ?? '';
    const file = files.get(id);
    if (!token.startsWith('xoxb-') || (options.scopes && !options.scopes.includes('files:read'))) {
      res.writeHead(302, { location: 'https://slack.com/signin?redir=files' });
      res.end();
      return;
    }
    if (!file) {
      res.writeHead(404);
      res.end();
      return;
    }
    if (file.redirectTo) {
      res.writeHead(302, { location: file.redirectTo });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': file.mimetype, 'content-length': String(file.bytes.byteLength) });
    res.end(Buffer.from(file.bytes));
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse) {
    if ((req.url ?? '').startsWith('/files-pri/')) {
      serveFile(req, res);
      return;
    }
    const method = (req.url ?? '').replace(/^.*\/api\//, '').replace(/\?.*$/, '');
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const args: Record<string, any> = {};
    if ((req.headers['content-type'] ?? '').includes('json')) Object.assign(args, raw ? JSON.parse(raw) : {});
    else {
      for (const [k, v] of new URLSearchParams(raw)) {
        if (JSON_FIELDS.has(k)) {
          try {
            args[k] = JSON.parse(v);
            continue;
          } catch {
            /* keep the raw string: Slack would answer invalid_blocks_format */
          }
        }
        args[k] = v;
      }
    }
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '') || String(args.token ?? '');
    const limit = limited.get(method);
    if (limit && limit.times > 0) {
      limit.times -= 1;
      const response = { ok: false, error: 'ratelimited' };
      calls.push({ method, args, at: Date.now(), response, status: 429, token });
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(limit.retryAfter) });
      res.end(JSON.stringify(response));
      return;
    }
    const tierWait = tierWaitMs(method, token);
    if (tierWait > 0) {
      const response = { ok: false, error: 'ratelimited' };
      calls.push({ method, args, at: Date.now(), response, status: 429, token });
      res.writeHead(429, {
        'content-type': 'application/json',
        'retry-after': String(Math.ceil(tierWait / 1000)),
      });
      res.end(JSON.stringify(response));
      return;
    }
    const failure = failing.get(method);
    if (failure && failure.times > 0) {
      failure.times -= 1;
      const response = { ok: false, error: 'fatal_error' };
      calls.push({ method, args, at: Date.now(), response, status: failure.status, token });
      res.writeHead(failure.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(response));
      return;
    }
    const response = handle(method, args, token);
    calls.push({ method, args, at: Date.now(), response, status: 200, token });
    for (const listener of [...listeners]) listener();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(response));
  }

  const server: Server = createServer((req, res) => {
    onRequest(req, res).catch((err) => {
      res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  (api as { url: string }).url = `http://127.0.0.1:${port}/api/`;
  return api;
}
