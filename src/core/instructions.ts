/**
 * `/instructions`: a channel's operator instructions (in the terminal, the local chat's). `/instructions`
 * shows them, `/instructions <text>` sets them (admins only when ADMIN_USERS is set — the command table
 * marks it as changing settings), `/instructions clear` removes them. A channel's own instructions
 * replace the SCOUT_INSTRUCTIONS default; without either, prompts carry no block at all.
 *
 * What is stored is cleaned and capped (src/prompts/operator-instructions.ts); what is echoed to the
 * chat has its mentions defused, so showing instructions can never ping anyone.
 */
import type { Config } from '../config/env.js';
import { joinText, type Phrase, phrase } from '../i18n/phrase.js';
import { looksLikeSecret } from '../llm/looks-like-secret.js';
import { MAX_INSTRUCTIONS_CHARS, cleanInstructions } from '../prompts/operator-instructions.js';
import { neutraliseMentions } from '../render/mentions.js';
import type { CommandReply } from '../surface.js';
import type { ChannelSettings } from './settings.js';
import type { SettingsService } from './settings-service.js';

/** `/config` shows this much of the instructions, on one line; `/instructions` shows all of them. */
const CONFIG_PREVIEW_CHARS = 160;

export interface InstructionsDeps {
  config: Config;
  settings: SettingsService;
}

export interface InstructionsContext {
  channelId: string;
}

/** The instructions a turn in this channel runs with: the channel's own, else the default. */
export function effectiveInstructions(settings: ChannelSettings, config: Config): string | undefined {
  return settings.instructions || config.instructions || undefined;
}

export async function runInstructionsCommand(
  deps: InstructionsDeps,
  args: string,
  ctx: InstructionsContext,
): Promise<CommandReply> {
  const where = phrase(
    ctx.channelId.startsWith('console:') ? 'instructions.where.terminal' : 'instructions.where.channel',
  );
  const wanted = args.trim();
  const current = await deps.settings.get(ctx.channelId);
  if (wanted === '') return { text: showInstructions(current, deps.config, where), changed: false };
  if (/^clear$/i.test(wanted)) {
    if (!current.instructions) {
      return { text: phrase('instructions.nothing-to-clear', { where }), changed: false };
    }
    await deps.settings.update(ctx.channelId, { instructions: undefined });
    const key = deps.config.instructions ? 'instructions.cleared-default' : 'instructions.cleared';
    return { text: phrase(key, { where }), changed: true };
  }
  const { text, cutChars } = cleanInstructions(wanted);
  if (text === '') return { text: phrase('instructions.empty'), changed: false };
  // Refused without being saved or shown back: `/config` would show a pasted key to the channel.
  if (looksLikeSecret(text)) return { text: phrase('instructions.looks-like-secret'), changed: false };
  await deps.settings.update(ctx.channelId, { instructions: text });
  const lines = [phrase('instructions.set', { where, chars: text.length })];
  if (cutChars > 0) {
    lines.push(phrase('instructions.cut', { max: MAX_INSTRUCTIONS_CHARS, cut: cutChars }));
  }
  return { text: joinText(lines, '\n'), changed: true };
}

/** The `/config` line: whose instructions apply and how they begin. */
export function instructionsConfigLine(settings: ChannelSettings, config: Config): Phrase {
  const own = settings.instructions;
  const text = own || config.instructions;
  const value = text
    ? phrase(own ? 'config.instructions.channel' : 'config.instructions.default', {
        chars: text.length,
        preview: neutraliseMentions(preview(text)),
      })
    : phrase('config.instructions.none');
  return joinText([phrase('config.instructions'), value], ': ');
}

function showInstructions(settings: ChannelSettings, config: Config, where: Phrase): Phrase {
  const own = settings.instructions;
  const text = own || config.instructions;
  if (!text) return phrase('instructions.none', { where });
  const title = phrase(own ? 'instructions.show.own' : 'instructions.show.default', {
    where,
    chars: text.length,
  });
  return joinText([title, quote(neutraliseMentions(text)), phrase('instructions.how')], '\n');
}

/** Quoted line by line: reads as the instructions, apart from Scout's own words around them. */
function quote(text: string): string {
  return text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}

function preview(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= CONFIG_PREVIEW_CHARS ? flat : `${flat.slice(0, CONFIG_PREVIEW_CHARS - 1).trimEnd()}…`;
}
