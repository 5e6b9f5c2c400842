/**
 * "slack-classic": the real Slack surface (Bolt in HTTP mode, the real WebClient) with native
 * streaming off, so every answer goes through post + chat.update, against the strict fake Web API.
 * `slackWorld(true)` is the same surface with native streaming on (slack-native-driver.ts).
 */
// biome-ignore-all lint/suspicious/noExplicitAny: recorded Slack payloads are open JSON
import { ANSWER_CHUNK_CHARS } from '../../adapters/slack/render-blocks.js';
import type { FakeMessage, RecordedCall } from '../helpers/fake-slack-api.js';
import { buttonPayload, startSlackHarness, threadFixture } from '../slack/slack-harness.js';
import type {
  Control,
  SeenMessage,
  SurfaceDriver,
  SurfaceWorld,
  WorldOptions,
  WriteCall,
  WriteMethod,
} from './surface-driver.js';
import { observedCore } from './surface-driver.js';

/** Short enough to keep the suite fast; the pacing properties are the same at any interval. */
export const SLACK_TEST_EDIT_INTERVAL_MS = 40;

const METHODS: Record<string, WriteMethod> = {
  'chat.postMessage': 'post',
  'chat.update': 'edit',
  'chat.delete': 'delete',
  'chat.postEphemeral': 'ephemeral',
  'chat.startStream': 'stream',
  'chat.appendStream': 'stream',
  'chat.stopStream': 'stream',
};
const PLATFORM_METHOD: Record<WriteMethod, string[]> = {
  post: ['chat.postMessage'],
  edit: ['chat.update'],
  delete: ['chat.delete'],
  ephemeral: ['chat.postEphemeral'],
  stream: ['chat.startStream', 'chat.appendStream', 'chat.stopStream'],
};
const CONTROLS: Record<string, Control> = {
  scout_stop: 'stop',
  scout_feedback_up: 'feedback',
  scout_plan_run: 'run',
  scout_plan_cancel: 'cancel',
  scout_toggle_details: 'details',
};
/** Every way Slack text pings: special tokens, user/group mentions, the broadcast words. */
const PING =
  /<!(?:channel|here|everyone)\b|<!subteam\^|<@[UW][A-Z0-9]+>|(?:^|[^\w\u200B])@(?:channel|here|everyone)\b/i;

function textsOf(value: any, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) textsOf(v, out);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) if (k === 'text' || typeof v === 'object') textsOf(v, out);
  return out;
}

function controlsOf(blocks: any[]): Control[] {
  const out: Control[] = [];
  for (const b of blocks)
    for (const e of b.type === 'actions' ? b.elements : [])
      if (CONTROLS[e.action_id]) out.push(CONTROLS[e.action_id]!);
  return out;
}

function seen(m: FakeMessage): SeenMessage {
  const blocks = m.blocks ?? [];
  const markdown = blocks.filter((b) => b.type === 'markdown');
  const controls = controlsOf(blocks);
  const footer = blocks.find((b) => b.type === 'context')?.elements?.[0]?.text;
  if (markdown.length > 0) {
    return {
      id: m.ts,
      kind: 'content',
      text: markdown.map((b: any) => b.text).join('\n'),
      ...(footer ? { footer } : {}),
      controls,
    };
  }
  // A natively streamed message shows what was streamed into it (its blocks are the footer and
  // buttons stopStream put under it); one that streamed task cards only is the turn's steps. Once
  // edited after its stream (chat.update), it shows its blocks, as any message.
  if (m.chunks.length > 0 && m.edits.length === 0) {
    if (m.streamedText)
      return { id: m.ts, kind: 'content', text: m.streamedText, ...(footer ? { footer } : {}), controls };
    const tasks = m.chunks.filter((c: any) => c.type === 'task_update').map((c: any) => c.title);
    return { id: m.ts, kind: 'steps', text: tasks.join('\n'), controls };
  }
  // Plan parts lead with sections; the steps message has step containers / context lines.
  const planLike = blocks[0]?.type === 'section' && !blocks.some((b) => b.type === 'container');
  const text = planLike
    ? blocks
        .filter((b) => b.type === 'section' || b.type === 'context')
        .map((b) => textsOf(b).join('\n'))
        .join('\n')
    : textsOf(blocks).join('\n');
  return { id: m.ts, kind: planLike ? 'content' : 'steps', text, controls };
}

export const slackClassicDriver: SurfaceDriver = {
  name: 'slack-classic',
  lacks: new Set(['native-stream', 'storm:stream']),
  start: (options) => slackWorld(false, options),
};

/** One turn's world on the real Slack surface, with native streaming on or off. */
export async function slackWorld(
  nativeStreaming: boolean,
  options: WorldOptions = {},
): Promise<SurfaceWorld> {
  const fx = threadFixture();
  const channel = fx.mention.event.channel as string;
  const threadTs = fx.mention.event.ts as string;
  const user = fx.mention.event.user as string;
  const conversation = `slack:${fx.mention.team_id}:${channel}:${threadTs}`;
  let observed!: ReturnType<typeof observedCore>;
  const s = await startSlackHarness({
    env: { ...(options.locale === 'zh' ? { BOT_LOCALE: 'zh' } : {}), ...options.env },
    nativeStreaming,
    editIntervalMs: SLACK_TEST_EDIT_INTERVAL_MS,
    fake: { userLocales: { [user]: options.locale === 'zh' ? 'zh-CN' : 'en-US' } },
    core: (scout) => {
      observed = observedCore(scout);
      return observed.core;
    },
  });
  const inThread = (c: RecordedCall) => c.args.channel === channel;
  const mention = (text: string) => ({
    ...fx.mention,
    event: { ...fx.mention.event, type: 'app_mention', text: `<@${fx.botUserId}> ${text}`.trim() },
  });
  return {
    llm: s.h.llm,
    search: s.h.search,
    answerChars: ANSWER_CHUNK_CHARS,
    async ask(text) {
      const before = observed.started;
      await s.event(mention(text));
      await s.slack.waitFor(() => observed.started > before, 10_000, 'the turn to start');
    },
    async settled() {
      await observed.settled();
      await s.surface.idle();
    },
    get finalView() {
      return observed.finalView;
    },
    rewriteFinal: (rewrite) => observed.rewriteFinal(rewrite),
    messages: () => s.slack.messagesIn(channel, threadTs).map(seen),
    watch: (listener) => s.slack.onCall(listener),
    calls: () =>
      s.slack.calls
        .filter((c) => METHODS[c.method])
        .map(
          (c): WriteCall => ({
            method: METHODS[c.method]!,
            platformMethod: c.method,
            inConversation: inThread(c),
            status: c.status === 200 && c.response.ok === false ? 400 : c.status,
            at: c.at,
          }),
        ),
    violations: () => s.slack.violations.map((v) => `${v.method}: ${v.error} ${v.detail}`),
    pings: () =>
      s.slack.calls
        .filter((c) => METHODS[c.method])
        .flatMap((c) =>
          textsOf([c.args.text, c.args.blocks, c.args.markdown_text, c.args.chunks])
            .filter((t) => PING.test(t))
            .map((t) => `${c.method}: ${t.slice(0, 80)}`),
        ),
    privateNotices: () =>
      s.slack.calls
        .filter(
          (c) =>
            c.response.ok &&
            (c.method === 'chat.postEphemeral' ||
              (c.method === 'chat.postMessage' && c.args.channel === user)),
        )
        .map((c) => String(c.args.text ?? '')),
    waitFor: (check, what, timeoutMs = 10_000) => s.slack.waitFor(check, timeoutMs, what),
    async press(control, message) {
      const actionId = Object.entries(CONTROLS).find(([, c]) => c === control)![0];
      const response = await s.action(
        buttonPayload(actionId, conversation, { channel, ts: message.id, threadTs, user }),
      );
      if (!response.ok) throw new Error(`pressing ${control}: HTTP ${response.status}`);
    },
    rateLimit(method, times) {
      // Slack's Retry-After is whole seconds: 0 keeps the storm fast while every call is refused.
      // A storm on the stream hits the call that must land: the stop carrying the final text.
      const methods = method === 'stream' ? ['chat.stopStream'] : PLATFORM_METHOD[method];
      for (const m of methods) s.slack.rateLimit(m, times, 0);
    },
    refuseConversation() {
      s.slack.refusedChannels.add(channel);
    },
    failEphemeral() {
      s.slack.ephemeralError = 'not_in_channel';
    },
    async privateCommand() {
      // An empty mention: short help, a private reply to the asker.
      await s.event(mention(''));
    },
    close: () => s.close(),
  };
}
