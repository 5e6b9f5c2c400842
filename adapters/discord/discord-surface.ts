/**
 * The Discord surface: a discord.js client that turns mentions, thread follow-ups and DMs into core
 * turns (rendered by `DiscordTurnSink`) and answers slash commands and buttons. All state that
 * outlives a message (thread ownership, finished steps) is in the store, so shards and restarts
 * share it.
 */
import { Client, Events, GatewayIntentBits, type Message, Partials } from 'discord.js';
import type { Config } from '../../src/config/env.js';
import { isChannelAllowed, isUserAllowed } from '../../src/core/allowed-channels.js';
import { requesterOf } from './requester.js';
import { StoreError } from '../../src/errors.js';
import { phrase } from '../../src/i18n/phrase.js';
import type { Logger } from '../../src/logger.js';
import type { SurfaceConnection } from '../../src/ops/surface-connection.js';
import { ChannelPacers, inGrant } from '../../src/render/channel-pacer.js';
import { systemClock } from '../../src/render/editor-clock.js';
import { resilientBudget, type SharedTake } from '../../src/render/pace-budget.js';
import type { ChannelLimits, PaceWindow } from '../../src/render/pace-rules.js';
import type { Stores } from '../../src/store/types.js';
import type { ScoutCore, Surface } from '../../src/surface.js';
import { registerSlashCommands } from './commands.js';
import { watchGateway } from './gateway-readiness.js';
import { DISALLOWED_INTENTS_CLOSE_CODE, DisallowedIntentsError, MessageContentHint } from './intent-hint.js';
import { discordContextSource } from './context-source.js';
import { handleInteraction } from './interactions.js';
import { NO_MENTIONS, noticeReply } from './render.js';
import { ThreadRegistry } from './thread-registry.js';
import { resolveTrigger } from './triggers.js';
import { DISCORD_GLOBAL_LIMIT, DiscordTurnSink } from './turn-sink.js';
import { ActiveTurns, StepsArchive } from './turn-state.js';
import { discordSearchFactory } from './workspace-search.js';

export interface DiscordSurfaceDeps {
  core: ScoutCore;
  config: Config;
  logger: Logger;
  stores: Stores;
  /** Minimum time between edits of one message (default 1 s; tests shrink it). */
  editIntervalMs?: number;
  /** Per-channel write limits (default DISCORD_CHANNEL_LIMITS; tests shrink them with the interval). */
  channelLimits?: ChannelLimits;
  /**
   * The bot's global limit as the instances sharing the store keep to it together (default
   * DISCORD_GLOBAL_LIMIT; tests shrink it).
   */
  globalLimit?: PaceWindow;
  /** Typing indicator refresh (default 8 s). */
  typingIntervalMs?: number;
  /** Counts every message post and edit (the `scout_edits_sent_total` metric), like Slack's. */
  onEdit?: () => void;
  /** Where the gateway's shard readiness is reported (/readyz, connection metrics). */
  connection?: SurfaceConnection;
}

export interface DiscordSurface extends Surface {
  readonly client: Client;
}

export function createDiscordSurface(deps: DiscordSurfaceDeps): DiscordSurface {
  const { core, config, stores } = deps;
  const logger = deps.logger.child({ surface: 'discord' });
  const apiUrl = config.env.DISCORD_API_URL;
  /**
   * `messageContent`: ask for the privileged Message Content intent (thread follow-ups without a
   * mention). When Discord refuses it (close 4014) Scout starts again without it: mentions, DMs and
   * slash commands carry their content anyway.
   */
  const buildClient = (messageContent: boolean) =>
    new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        ...(messageContent ? [GatewayIntentBits.MessageContent] : []),
        GatewayIntentBits.DirectMessages,
      ],
      // DM channels are not cached until a message arrives: partial channels let those messages through.
      partials: [Partials.Channel],
      // Belt and braces: every payload also sets it, so no code path can ping.
      allowedMentions: NO_MENTIONS,
      ...(apiUrl ? { rest: { api: apiUrl.replace(/\/+$/, '') } } : {}),
    });
  let client = buildClient(true);
  const registry = new ThreadRegistry(stores.meta);
  const active = new ActiveTurns();
  const archive = new StepsArchive(stores.meta);
  const hint = new MessageContentHint(logger);
  // One pacer per channel or thread, shared by every turn there (src/render/channel-pacer.ts). With
  // a store several instances share (Redis), every write of every channel (and a turn's thread and
  // typing indicator, below) also takes a unit of the bot's global limit there, for all instances
  // together; when the store cannot answer, discord.js keeps this process to the limit alone
  // (src/render/pace-budget.ts).
  const shared = stores.paceBudget
    ? {
        budget: resilientBudget(stores.paceBudget, {
          clock: systemClock,
          onOutage: (err) =>
            logger.warn(
              { err: err instanceof Error ? err.message : String(err) },
              'shared pacing unavailable; pacing this instance’s Discord writes alone until the store answers',
            ),
          onRecovered: () => logger.info('shared pacing available again'),
        }),
        key: () => `discord:${client.user?.id ?? 'bot'}:global`,
        windows: [deps.globalLimit ?? DISCORD_GLOBAL_LIMIT],
      }
    : undefined;
  const pacers = new ChannelPacers(systemClock, shared);
  /**
   * The calls of a turn outside the channel pacers — opening its thread, the typing indicator — take
   * a unit of the shared global budget too: a burst of new turns makes two of them each, more than
   * the global limit's reserve for calls not paced. A thread waits for its unit (as urgent as a first
   * answer); the typing indicator is skipped when the budget has no room now.
   */
  const takeGlobal = async (urgent: boolean): Promise<SharedTake | undefined> =>
    shared ? shared.budget.take(shared.key(), shared.windows, urgent) : undefined;
  const paceThread = async <T>(open: () => Promise<T>): Promise<T> => {
    for (;;) {
      const answer = await takeGlobal(true);
      if (!answer) return open();
      if ('unit' in answer) return inGrant(answer.unit, open);
      await new Promise((resolve) => setTimeout(resolve, answer.waitMs));
    }
  };
  const paceTyping = async (send: () => Promise<void>): Promise<void> => {
    const answer = await takeGlobal(false);
    if (!answer) return send();
    if ('unit' in answer) return inGrant(answer.unit, send);
  };
  let accepting = false;
  // WORKSPACE_SEARCH=on: search_workspace reads the channels the asker (and the answer's readers) may read.
  const searchFor =
    config.env.WORKSPACE_SEARCH === 'on' && config.env.DISCORD_TOKEN
      ? discordSearchFactory({ client: () => client, token: config.env.DISCORD_TOKEN, apiUrl, logger })
      : undefined;

  async function onMessage(message: Message): Promise<void> {
    if (!accepting || !client.user) return;
    const requester = requesterOf(
      message.author.id,
      message.member?.roles.cache.map((r) => r.id),
      !message.guild,
    );
    // Before the trigger: a mention from a refused user must not even open a thread.
    if (!message.author.bot && !isUserAllowed(config, requester)) return;
    try {
      const trigger = await resolveTrigger(message, {
        botId: client.user.id,
        registry,
        getSettings: (channelId) => core.getSettings(channelId),
        isAllowed: (channelId) => isChannelAllowed(config, channelId),
        ...(core.overDailyLimit ? { overDailyLimit: core.overDailyLimit.bind(core) } : {}),
        logger,
        onEmptyContent: (m) => hint.warn({ channel: m.channelId }),
        paceThread,
      });
      if (!trigger) return;
      const sink = new DiscordTurnSink({
        channel: trigger.channel,
        conversationId: trigger.incoming.conversationId,
        askerId: trigger.incoming.userId,
        locale: trigger.incoming.locale ?? core.locale,
        logger,
        active,
        archive,
        editIntervalMs: deps.editIntervalMs,
        typingIntervalMs: deps.typingIntervalMs,
        onEdit: deps.onEdit,
        pacers,
        paceTyping,
        ...(deps.channelLimits ? { channelLimits: deps.channelLimits } : {}),
      });
      const context = discordContextSource({ message, earlier: trigger.earlier, apiUrl, logger });
      const workspaceSearch = searchFor?.(message);
      await core.handleMessage(
        { ...trigger.incoming, ...requester, context, ...(workspaceSearch ? { workspaceSearch } : {}) },
        sink,
      );
    } catch (err) {
      logger.error({ err, message: message.id }, 'discord message handling failed');
      // Thread ownership and channel settings live in the store: when it fails before the core
      // gets the message, a message meant for Scout still gets a visible answer, not silence.
      if (err instanceof StoreError && client.user && addressedToScout(message, client.user.id)) {
        await message
          .reply(noticeReply(phrase('error.store'), core.locale))
          .catch((replyErr) => logger.warn({ err: replyErr }, 'store-unavailable reply failed'));
      }
    }
  }

  function wire(c: Client): void {
    c.on(Events.MessageCreate, (message) => void onMessage(message));
    c.on(Events.InteractionCreate, (interaction) => {
      if (!accepting) return;
      void handleInteraction(interaction, {
        core,
        logger,
        active,
        archive,
        admins: config.env.ADMIN_USERS,
        isAllowed: (who) => isUserAllowed(config, who),
      });
    });
    c.on(Events.ShardError, (err, shardId) => logger.error({ err, shardId }, 'discord shard error'));
    c.on(Events.Warn, (message) => logger.warn(message));
    if (deps.connection) watchGateway(c, deps.connection);
  }
  wire(client);

  /** Logs in; rejects with `DisallowedIntentsError` when Discord closes the gateway with 4014. */
  async function connect(c: Client, token: string): Promise<void> {
    const ready = new Promise<void>((resolve, reject) => {
      c.once(Events.ClientReady, () => resolve());
      c.on(Events.ShardDisconnect, (event, shardId) => {
        if (event.code === DISALLOWED_INTENTS_CLOSE_CODE) reject(new DisallowedIntentsError());
        else
          logger.warn(
            { shardId, closeCode: event.code },
            'discord shard disconnected and will not reconnect',
          );
      });
    });
    // A disallowed-intents close never resolves login: race it against the disconnect.
    await Promise.race([c.login(token).then(() => ready), ready]);
  }

  return {
    name: 'discord',
    get client() {
      return client;
    },
    async start() {
      const token = config.env.DISCORD_TOKEN;
      if (!token) throw new Error('DISCORD_TOKEN is not set');
      try {
        await connect(client, token);
      } catch (err) {
        if (!(err instanceof DisallowedIntentsError)) throw err;
        hint.warn({ closeCode: DISALLOWED_INTENTS_CLOSE_CODE });
        await client.destroy();
        client = buildClient(false);
        wire(client);
        await connect(client, token);
      }
      accepting = true;
      const user = client.user;
      logger.info({ user: user?.tag, guilds: client.guilds.cache.size }, 'discord connected');
      try {
        await registerSlashCommands(client as Client<true>, config.env.DISCORD_GUILD_ID, logger);
      } catch (err) {
        // Commands are a convenience; mentions and DMs still work without them.
        logger.error({ err }, 'discord slash command registration failed');
      }
    },
    async stop() {
      accepting = false;
      await client.destroy();
      deps.connection?.stopped();
    },
  };
}

/** A DM, a mention, or a message in a thread Scout started: known without asking the store. */
function addressedToScout(message: Message, botId: string): boolean {
  if (message.author.bot) return false;
  if (!message.inGuild()) return true;
  if (message.mentions.users.has(botId) || new RegExp(`<@!?${botId}>`).test(message.content)) return true;
  return message.channel.isThread() && message.channel.ownerId === botId;
}
