/**
 * Shared set-up for the Discord tests: the fake Discord, the real surface on top of it, fixture-based
 * gateway events, and a scripted core (for tests that need no LLM).
 */
import { createDiscordSurface, type DiscordSurface } from '../../adapters/discord/discord-surface.js';
import { loadConfig } from '../../src/config/env.js';
import type { ChannelSettings } from '../../src/core/settings.js';
import { type Logger, silentLogger } from '../../src/logger.js';
import type { SurfaceConnection } from '../../src/ops/surface-connection.js';
import type { TurnEvent } from '../../src/render/events.js';
import { emptyView, foldEvent } from '../../src/render/view.js';
import { createStores } from '../../src/store/create-stores.js';
import type { Stores } from '../../src/store/types.js';
import type { CommandReply, IncomingMessage, Locale, ScoutCore, TurnSink } from '../../src/surface.js';
import { loadJsonFixture } from '../helpers/fixtures.js';
import { FakeDiscord, type FakeDiscordOptions, nextSnowflake } from '../helpers/fake-discord.js';
import { startTestScout, type TestScout } from '../helpers/scout-harness.js';
import { scaledChannelLimits } from '../helpers/channel-limits.js';
import { DISCORD_CHANNEL_LIMITS, EDIT_INTERVAL_MS } from '../../adapters/discord/turn-sink.js';

// biome-ignore lint/suspicious/noExplicitAny: recorded payloads
export const gatewayFixtures: Record<string, any> = loadJsonFixture('discord/gateway-events.json');
// `{}` when ../shared/fixtures is absent: the suites reading it are then skipped (describeWithShared).
export const meta = (gatewayFixtures.metadata ?? {}) as {
  botId: string;
  guildId: string;
  channelId: string;
  threadId: string;
  userId: string;
  roleId: string;
};

/** A recorded MESSAGE_CREATE payload with a fresh id (unless kept) and any overrides. */
export function fixtureMessage(name: string, overrides: Record<string, unknown> = {}, keepId = false) {
  const data = structuredClone(gatewayFixtures[name].data);
  return { ...data, ...(keepId ? {} : { id: nextSnowflake() }), ...overrides };
}

/** A recorded INTERACTION_CREATE payload (the interaction object itself), cloned. */
// biome-ignore lint/suspicious/noExplicitAny: recorded payloads
export function fixtureInteraction(name: string): any {
  return structuredClone(gatewayFixtures[name]);
}

/** A DM from the fixture user, in a DM channel Discord would have created. */
export function dmMessage(content: string, channelId = '1460000000000000001') {
  const base = fixtureMessage('gatewayThreadUserHey');
  delete base.guild_id;
  delete base.member;
  return { ...base, channel_id: channelId, channel_type: 1, content };
}

/** A slash-command interaction (`/name` with `options`) from the fixture member in the fixture channel. */
export function slashCommand(
  name: string,
  options: { name: string; type: number; value: string }[] = [],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    type: 2,
    channel_id: meta.channelId,
    guild_id: meta.guildId,
    channel: { id: meta.channelId, type: 0, guild_id: meta.guildId, name: 'general' },
    member: fixtureInteraction('buttonClickHello').member,
    ...extra,
    data: { id: '1', name, type: 1, options },
  };
}

export function settingsWith(overrides: Partial<ChannelSettings> = {}): ChannelSettings {
  return {
    mode: 'chat',
    search: false,
    toolModel: { provider: 'openai', model: 'test-model', temperature: 0.7, maxTokens: 2000 },
    answerModel: null,
    replyInThread: true,
    ...overrides,
  } as ChannelSettings;
}

/** A core that plays scripted events for every message, folded into the view like the real one. */
export class ScriptedCore implements ScoutCore {
  readonly locale: Locale = 'en';
  readonly received: IncomingMessage[] = [];
  readonly commands: { name: string; args: string; context: unknown }[] = [];
  readonly cancelled: string[] = [];
  settings = settingsWith();
  script: (message: IncomingMessage) => TurnEvent[] = (m) => [
    { type: 'phase', label: '💬 openai/test-model' },
    { type: 'text-delta', text: `Answer to: ${m.text}` },
    { type: 'answer', text: `Answer to: ${m.text}`, sources: [] },
  ];
  /** Set to hold turns open until released (Stop button tests). */
  gate: Promise<void> | undefined;

  async handleMessage(message: IncomingMessage, sink: TurnSink): Promise<void> {
    this.received.push(message);
    const view = emptyView();
    for (const event of this.script(message)) {
      foldEvent(view, event, 'en');
      sink.update(view);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    if (this.gate) await this.gate;
    view.done = true;
    await sink.done(view);
  }

  async runCommand(name: string, args: string, context: { locale?: Locale }): Promise<CommandReply> {
    this.commands.push({ name, args, context });
    return {
      text: `ran ${name} ${args}`.trim() + (context.locale === 'zh' ? ' (zh)' : ''),
      changed: args !== '',
    };
  }

  cancel(conversationId: string): boolean {
    this.cancelled.push(conversationId);
    return true;
  }

  async firstDelivery(): Promise<boolean> {
    return true;
  }

  async getSettings(): Promise<ChannelSettings> {
    return this.settings;
  }
}

/**
 * A core whose turn asks the person a yes/no question through the sink (plan Run / Cancel, tool
 * Approve / Deny), records the answer in `choices`, then answers with the `yes` or `no` text.
 */
export class ConfirmingCore extends ScriptedCore {
  readonly choices: boolean[] = [];

  constructor(
    private readonly ask: (sink: TurnSink, signal: AbortSignal) => Promise<boolean>,
    private readonly answers: { yes: string; no: string },
  ) {
    super();
  }

  override async handleMessage(message: IncomingMessage, sink: TurnSink): Promise<void> {
    this.received.push(message);
    const view = emptyView();
    sink.update(view);
    const yes = await this.ask(sink, new AbortController().signal);
    this.choices.push(yes);
    view.answer = yes ? this.answers.yes : this.answers.no;
    view.answerFinal = true;
    view.done = true;
    await sink.done(view);
  }
}

/** A member of the guild who did not ask and is not an admin. */
/** Discord's per-channel limits on the tests' time base (an edit interval of 20 ms for 1 s). */
export const TEST_CHANNEL_LIMITS = scaledChannelLimits(DISCORD_CHANNEL_LIMITS, 20 / EDIT_INTERVAL_MS);

export const OTHER_USER = '1033044521375764999';
/** MessageFlags.Ephemeral: only the presser sees the reply. */
export const EPHEMERAL = 64;

/**
 * Clicks a button on a message the way Discord sends it (the recorded click with these ids), as
 * `userId` (default: the recorded user); `reply()` waits for Scout's interaction callback.
 */
export function pressButton(
  fake: FakeDiscord,
  at: { channelId: string; messageId: string; customId: string; userId?: string; locale?: string },
) {
  const f = fixtureInteraction('buttonClickHello');
  const click = fake.interact({
    ...f,
    ...(at.locale ? { locale: at.locale } : {}),
    ...(at.userId ? { member: { ...f.member, user: { ...f.member.user, id: at.userId } } } : {}),
    channel_id: at.channelId,
    channel: { ...f.channel, id: at.channelId },
    message: { ...f.message, id: at.messageId, channel_id: at.channelId },
    data: { component_type: 2, custom_id: at.customId },
  });
  const reply = () =>
    fake.waitFor(() =>
      fake
        .callsTo('POST /interactions/:interaction/:token/callback')
        .find((c) => c.path.includes(`/interactions/${click.id}/`)),
    );
  return { click, reply };
}

export interface Kit {
  fake: FakeDiscord;
  surface: DiscordSurface;
  stores: Stores;
  close(): Promise<void>;
}

/** Starts the fake Discord and a surface for `core` on it. Close with `kit.close()`. */
export async function startKit(
  core: ScoutCore,
  options: {
    env?: Record<string, string>;
    logger?: Logger;
    fake?: FakeDiscord;
    fakeOptions?: FakeDiscordOptions;
    stores?: Stores;
    start?: boolean;
    onEdit?: () => void;
    connection?: SurfaceConnection;
  } = {},
): Promise<Kit> {
  const fake = options.fake ?? (await FakeDiscord.start(options.fakeOptions));
  const config = loadConfig({
    OPENAI_API_KEY: 'sk-test',
    STORE_URL: 'memory://',
    DISCORD_TOKEN: 'fake-discord-token',
    DISCORD_API_URL: fake.apiUrl,
    ...options.env,
  });
  const stores =
    options.stores ??
    (await createStores({ url: 'memory://', sessionTtlMs: config.env.SESSION_TTL, logger: silentLogger }));
  const surface = createDiscordSurface({
    core,
    config,
    logger: options.logger ?? silentLogger,
    stores,
    editIntervalMs: 20,
    channelLimits: TEST_CHANNEL_LIMITS,
    typingIntervalMs: 40,
    onEdit: options.onEdit,
    ...(options.connection ? { connection: options.connection } : {}),
  });
  if (options.start !== false) await surface.start();
  return {
    fake,
    surface,
    stores,
    async close() {
      await surface.stop();
      if (!options.stores) await stores.close();
      if (!options.fake) await fake.close();
    },
  };
}

/** The real core (scout-harness) behind the real Discord surface, on a fake Discord. */
export interface E2E {
  fake: FakeDiscord;
  harness: TestScout;
  surface: DiscordSurface;
}

/** Starts an {@link E2E} world; `extraEnv` is added to the core's environment. Close with `closeE2E`. */
export async function startE2E(
  extraEnv: Record<string, string> = {},
  fakeOptions: FakeDiscordOptions = {},
  /** Sets the fake server up (channels, members) before Scout connects to it. */
  prepare: (fake: FakeDiscord) => void = () => {},
): Promise<E2E> {
  const fake = await FakeDiscord.start(fakeOptions);
  prepare(fake);
  const harness = await startTestScout({
    env: { DISCORD_TOKEN: 'fake-discord-token', DISCORD_API_URL: fake.apiUrl, ...extraEnv },
  });
  const surface = createDiscordSurface({
    core: harness.scout,
    config: harness.config,
    logger: silentLogger,
    stores: harness.stores,
    editIntervalMs: 20,
    channelLimits: TEST_CHANNEL_LIMITS,
    typingIntervalMs: 50,
  });
  await surface.start();
  return { fake, harness, surface };
}

/** Stops the surface, then the core, then the fake (tolerates `undefined` for an afterEach). */
export async function closeE2E(e: E2E | undefined): Promise<void> {
  await e?.surface.stop();
  await e?.harness.close();
  await e?.fake.close();
}

/** Message-sending routes: every call to one of these must carry `allowed_mentions: { parse: [] }`. */
export const SENDING_ROUTES = new Set([
  'POST /channels/:channel/messages',
  'PATCH /channels/:channel/messages/:message',
  'POST /webhooks/:application/:token',
  'PATCH /webhooks/:application/:token/messages/@original',
  'PATCH /webhooks/:application/:token/messages/:message',
]);

/** Resolves when the turn in `channelId` has finished (the final answer carries the feedback buttons). */
export function finishedIn(e: E2E, channelId: string, timeoutMs = 8000) {
  return e.fake.waitFor(
    () =>
      e.fake
        .messagesIn(channelId)
        .find((m) => m.components[0]?.components?.[0]?.custom_id?.startsWith('scout_feedback:')),
    timeoutMs,
    `a finished answer in ${channelId}`,
  );
}
