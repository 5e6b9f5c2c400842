/**
 * Slash commands, built from the core's command table (`COMMAND_NAMES`/`COMMANDS`), registered at
 * start by bulk overwrite (to one guild with DISCORD_GUILD_ID: instant; else globally: propagates),
 * and answered ephemerally: deferred at once (Discord allows 3 s), then edited with the core's reply.
 */
import { interactionRoles, requesterOf } from './requester.js';
import {
  ApplicationCommandOptionType,
  type ChatInputCommandInteraction,
  type Client,
  InteractionContextType,
  MessageFlags,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord.js';
import { COMMAND_NAMES, COMMANDS, type CommandName } from '../../src/core/commands.js';
import { toLocale } from '../../src/i18n/translate.js';
import type { Logger } from '../../src/logger.js';
import { deliverReply } from '../../src/render/reply.js';
import type { Locale, ScoutCore } from '../../src/surface.js';
import { channelKey, conversationKey, type DiscordPlace } from './ids.js';
import { discordWrite } from './delivery-errors.js';
import { DISCORD_REPLY, NO_MENTIONS } from './render.js';
import type { StringKey } from '../../src/i18n/strings.js';
import { say } from '../../src/i18n/say.js';
import { t } from '../../src/i18n/translate.js';

/** Discord's limit on command and option descriptions. */
const DESCRIPTION_MAX = 100;

interface OptionSpec {
  name: string;
  description: StringKey;
  choices?: { value: string; label: StringKey }[];
}

/** The one option each command takes; a command the table adds later gets a free-text `args`. */
const OPTIONS: Partial<Record<CommandName, OptionSpec | null>> = {
  mode: {
    name: 'mode',
    description: 'option.mode',
    choices: [
      { value: 'chat', label: 'mode.chat.name' },
      { value: 'agent', label: 'mode.agent.name' },
      { value: 'plan', label: 'mode.plan.name' },
    ],
  },
  search: {
    name: 'state',
    description: 'option.search',
    choices: [
      { value: 'on', label: 'choice.on' },
      { value: 'off', label: 'choice.off' },
    ],
  },
  model: { name: 'args', description: 'option.args' },
  instructions: { name: 'text', description: 'option.instructions' },
  // The value is the whole argument text the core's `/config thread on|off` expects.
  config: {
    name: 'thread',
    description: 'option.thread',
    choices: [
      { value: 'thread on', label: 'choice.thread-on' },
      { value: 'thread off', label: 'choice.thread-off' },
    ],
  },
  memory: {
    name: 'action',
    description: 'option.memory',
    choices: [{ value: 'clear', label: 'choice.memory-clear' }],
  },
};

const cut = (text: string) =>
  text.length <= DESCRIPTION_MAX ? text : `${text.slice(0, DESCRIPTION_MAX - 1)}…`;

/** `guild`: commands for one guild, which cannot be offered in DMs with the bot (Discord refuses it). */
export function buildSlashCommands(guild = false): RESTPostAPIChatInputApplicationCommandsJSONBody[] {
  return COMMAND_NAMES.map((name) => {
    const spec = COMMANDS[name];
    const option =
      name in OPTIONS
        ? OPTIONS[name]
        : spec.usage
          ? { name: 'args', description: 'option.args' as const }
          : null;
    return {
      name,
      description: cut(t('en', spec.description)),
      description_localizations: { 'zh-CN': cut(t('zh', spec.description)) },
      // Global commands work in servers and in DMs with the bot; guild commands only in their guild.
      contexts: guild
        ? [InteractionContextType.Guild]
        : [InteractionContextType.Guild, InteractionContextType.BotDM],
      options: option
        ? [
            {
              type: ApplicationCommandOptionType.String,
              name: option.name,
              description: cut(t('en', option.description)),
              description_localizations: { 'zh-CN': cut(t('zh', option.description)) },
              required: false,
              ...(option.choices
                ? {
                    choices: option.choices.map((c) => ({
                      name: t('en', c.label),
                      name_localizations: { 'zh-CN': t('zh', c.label) },
                      value: c.value,
                    })),
                  }
                : {}),
            },
          ]
        : [],
    };
  });
}

/** Bulk-overwrites the commands: one PUT replaces the whole set, so renamed or removed ones vanish. */
export async function registerSlashCommands(
  client: Client<true>,
  guildId: string | undefined,
  logger: Logger,
): Promise<void> {
  const commands = buildSlashCommands(Boolean(guildId));
  if (guildId) await client.application.commands.set(commands, guildId);
  else await client.application.commands.set(commands);
  logger.info(
    { count: commands.length, scope: guildId ? 'guild' : 'global' },
    'discord slash commands registered',
  );
}

export function isScoutCommand(name: string): boolean {
  return (COMMAND_NAMES as readonly string[]).includes(name);
}

/** The place of an interaction, from its ids (the channel may not be cached, e.g. in a DM). */
export function interactionPlace(interaction: {
  guildId: string | null;
  channelId: string | null;
  channel: { isThread(): boolean; parentId?: string | null } | null;
}): DiscordPlace {
  const guildId = interaction.guildId ?? undefined;
  const channelId = interaction.channelId ?? 'unknown';
  if (interaction.channel?.isThread()) {
    return { guildId, channelId: interaction.channel.parentId ?? channelId, threadId: channelId };
  }
  return { guildId, channelId };
}

export async function handleSlashCommand(
  interaction: ChatInputCommandInteraction,
  core: ScoutCore,
  logger: Logger,
): Promise<void> {
  // Defer first: the core may touch the store, and Discord drops interactions not answered in 3 s.
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const locale: Locale = toLocale(interaction.locale, core.locale);
  const args = interaction.options.data
    .map((option) => (option.value === undefined ? '' : String(option.value)))
    .filter(Boolean)
    .join(' ');
  const place = interactionPlace(interaction);
  const reply = await core.runCommand(interaction.commandName, args, {
    channelId: channelKey(place),
    conversationId: conversationKey(place),
    ...requesterOf(interaction.user.id, interactionRoles(interaction.member), !interaction.inGuild()),
    locale,
  });
  // `/usage`'s chart rides on the (ephemeral) reply; a chart that fails to draw leaves the text.
  const image = await reply.image?.().catch((err: unknown) => {
    logger.warn({ err: String(err) }, 'usage chart failed');
    return undefined;
  });
  const files = image
    ? [{ attachment: image.data, name: image.name, description: say(locale, image.alt) }]
    : undefined;
  // Under the delivery policy like every other write (src/render/reply.ts): the first part edits the
  // deferred reply, the rest follow up ephemerally. Not under the channel's pace: interaction
  // replies go to the interaction's webhook, which the channel's limits do not count.
  await deliverReply(say(locale, reply.text) || '…', DISCORD_REPLY, [
    {
      write: (content, index) =>
        discordWrite(() =>
          index === 0
            ? interaction.editReply({ content, allowedMentions: NO_MENTIONS, ...(files ? { files } : {}) })
            : interaction.followUp({ content, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS }),
        ),
    },
  ]);
  logger.debug(
    { command: interaction.commandName, changed: reply.changed },
    'discord slash command answered',
  );
}
