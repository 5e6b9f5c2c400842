/**
 * "discord": the real Discord surface (discord.js gateway + REST) against the strict fake Discord.
 * A mention opens a thread (id = the mention's id): the turn's conversation.
 */
import { createDiscordSurface } from '../../adapters/discord/discord-surface.js';
import { silentLogger } from '../../src/logger.js';
import { FakeDiscord, type RecordedCall } from '../helpers/fake-discord.js';
import { startTestScout } from '../helpers/scout-harness.js';
import { fixtureInteraction, fixtureMessage, meta } from '../discord/discord-test-kit.js';
import { nextSnowflake } from '../helpers/fake-discord.js';
import type {
  Control,
  SeenMessage,
  SurfaceDriver,
  SurfaceWorld,
  WorldOptions,
  WriteMethod,
} from './surface-driver.js';
import { observedCore } from './surface-driver.js';
import { DISCORD_CHANNEL_LIMITS, EDIT_INTERVAL_MS } from '../../adapters/discord/turn-sink.js';
import { scaledChannelLimits } from '../helpers/channel-limits.js';

/** Short enough to keep the suite fast; the pacing properties are the same at any interval. */
export const DISCORD_TEST_EDIT_INTERVAL_MS = 20;

const ROUTES: Record<string, WriteMethod> = {
  'POST /channels/:channel/messages': 'post',
  'PATCH /channels/:channel/messages/:message': 'edit',
  'DELETE /channels/:channel/messages/:message': 'delete',
  'POST /interactions/:interaction/:token/callback': 'ephemeral',
};
const CONTROLS: [prefix: string, control: Control][] = [
  ['scout_stop', 'stop'],
  ['scout_feedback:', 'feedback'],
  ['scout_plan:run:', 'run'],
  ['scout_plan:cancel:', 'cancel'],
  ['scout_steps_toggle:', 'details'],
];

interface RawButton {
  custom_id?: string;
}

function buttons(components: { components?: RawButton[] }[]): RawButton[] {
  return components.flatMap((row) => row.components ?? []);
}

function controlOf(customId: string | undefined): Control | undefined {
  return CONTROLS.find(([prefix]) => customId?.startsWith(prefix))?.[1];
}

export const discordDriver: SurfaceDriver = {
  name: 'discord',
  // No ephemeral replies to a message trigger on Discord: a private reply there is a DM or nothing.
  lacks: new Set([
    'native-stream',
    'storm:stream',
    'failing-ephemeral',
    'private-replies',
    'storm:ephemeral',
  ]),
  async start(options: WorldOptions = {}): Promise<SurfaceWorld> {
    const fake = await FakeDiscord.start();
    const harness = await startTestScout({
      env: {
        DISCORD_TOKEN: 'fake-discord-token',
        DISCORD_API_URL: fake.apiUrl,
        ...(options.locale === 'zh' ? { BOT_LOCALE: 'zh' } : {}),
        ...options.env,
      },
    });
    const observed = observedCore(harness.scout);
    const surface = createDiscordSurface({
      core: observed.core,
      config: harness.config,
      logger: silentLogger,
      stores: harness.stores,
      editIntervalMs: DISCORD_TEST_EDIT_INTERVAL_MS,
      channelLimits: scaledChannelLimits(
        DISCORD_CHANNEL_LIMITS,
        DISCORD_TEST_EDIT_INTERVAL_MS / EDIT_INTERVAL_MS,
      ),
      typingIntervalMs: 50,
    });
    await surface.start();
    // The thread a mention opens has the mention's id: known before the turn starts.
    const thread = nextSnowflake();
    const inThread = (c: RecordedCall) => c.path.startsWith(`/channels/${thread}/`);
    const seen = (): SeenMessage[] =>
      fake.messagesIn(thread).map((m, index) => {
        const lines = m.content.split('\n');
        const footer = lines.at(-1)?.startsWith('-# ') ? lines.pop()!.slice(3) : undefined;
        const controls = buttons(m.components)
          .map((b) => controlOf(b.custom_id))
          .filter((c): c is Control => c !== undefined);
        // Discord has no status line: the steps message is always the thread's first.
        return {
          id: m.id,
          kind: index === 0 ? 'steps' : 'content',
          text: lines.join('\n'),
          ...(footer !== undefined ? { footer } : {}),
          controls,
        };
      });
    return {
      llm: harness.llm,
      search: harness.search,
      answerChars: 2_000,
      async ask(text) {
        const before = observed.started;
        fake.dispatch(
          'MESSAGE_CREATE',
          fixtureMessage('gatewayMention', { id: thread, content: `<@${meta.botId}> ${text}`.trim() }),
        );
        await fake.waitFor(() => observed.started > before, 10_000, 'the turn to start');
      },
      async settled() {
        await observed.settled();
      },
      get finalView() {
        return observed.finalView;
      },
      rewriteFinal: (rewrite) => observed.rewriteFinal(rewrite),
      messages: seen,
      watch: (listener) => fake.onCall(listener),
      calls: () =>
        fake.calls
          .filter((c) => ROUTES[c.route])
          .filter(
            (c) =>
              c.route !== 'POST /interactions/:interaction/:token/callback' ||
              (c.body?.data?.flags ?? 0) & 64,
          )
          .map((c) => ({
            method: ROUTES[c.route]!,
            platformMethod: c.route,
            inConversation: inThread(c),
            status: c.status,
            at: c.at,
          })),
      violations: () => [...fake.violations],
      pings: () => [...fake.pings],
      privateNotices: () => [
        ...fake
          .callsTo('POST /interactions/:interaction/:token/callback')
          .filter((c) => (c.body?.data?.flags ?? 0) & 64)
          .map((c) => String(c.body?.data?.content ?? '')),
        // A DM from Scout that landed.
        ...fake
          .callsTo('POST /channels/:channel/messages')
          .filter((c) => c.status === 200 && fake.dmChannels.has(c.path.split('/')[2]!))
          .map((c) => String(c.body?.content ?? '')),
      ],
      async waitFor(check, what, timeoutMs = 10_000) {
        await fake.waitFor(() => check(), timeoutMs, what);
      },
      async press(control, message) {
        const raw = fake.messages.get(message.id);
        const button = buttons(raw?.components ?? []).find((b) => controlOf(b.custom_id) === control);
        if (!button?.custom_id) throw new Error(`no ${control} button on message ${message.id}`);
        const f = fixtureInteraction('buttonClickHello');
        const click = fake.interact({
          ...f,
          channel_id: thread,
          channel: { ...f.channel, id: thread },
          message: { ...f.message, id: message.id, channel_id: thread },
          data: { component_type: 2, custom_id: button.custom_id },
        });
        await fake.waitFor(
          () => fake.calls.find((c) => c.path.includes(`/interactions/${click.id}/`)),
          10_000,
          `the ${control} press answered`,
        );
      },
      rateLimit(method, times) {
        const route = Object.entries(ROUTES).find(([, m]) => m === method)?.[0];
        if (route) fake.rateLimitStorm(route, times, 0.01);
      },
      refuseConversation() {
        fake.refusedChannels.add(thread);
      },
      failEphemeral() {
        throw new Error('discord: no ephemeral replies to messages');
      },
      async privateCommand() {
        throw new Error('discord: no private command reply to a message');
      },
      async close() {
        await surface.stop();
        await harness.close();
        await fake.close();
      },
    };
  },
};
