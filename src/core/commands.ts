/**
 * The command table, parsed once for every surface: Slack and Discord slash commands, text after a
 * mention (`@Scout mode agent`) and the console (`/mode agent`). The manifest and the Discord
 * registration are checked against `COMMAND_NAMES` by tests.
 */
import { joinText, type Phrase, phrase } from '../i18n/phrase.js';
import type { StringKey } from '../i18n/strings.js';

export const COMMAND_NAMES = [
  'mode',
  'config',
  'model',
  'search',
  'tools',
  'help',
  'reset',
  'memory',
  'instructions',
  'usage',
] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

export interface CommandSpec {
  name: CommandName;
  /** Argument syntax shown in usage lines and slash-command hints. */
  usage: string;
  /** The catalog key of its one-line description (help, usage, slash-command hints). */
  description: StringKey;
  /** Whether the command changes settings (admin-only when ADMIN_USERS is set). */
  changesSettings: (args: string) => boolean;
  /**
   * Whether bare text (no leading slash) with these arguments is meant as this command. Keeps
   * "help me write a poem" a question while "help" alone is the command.
   */
  acceptsBare: (args: string) => boolean;
  /**
   * Its reply is the asker's alone: where a reply in the conversation is public (a mention on
   * Discord), it goes privately instead.
   */
  privateReply?: true;
}

const isEmpty = (args: string) => args.trim() === '';

export const COMMANDS: Record<CommandName, CommandSpec> = {
  mode: {
    name: 'mode',
    usage: 'chat|agent|plan',
    description: 'command.mode',
    changesSettings: (args) => !isEmpty(args),
    acceptsBare: (args) => /^(chat|agent|plan)?$/i.test(args.trim()),
  },
  config: {
    name: 'config',
    usage: '[thread on|off]',
    description: 'command.config',
    changesSettings: (args) => !isEmpty(args),
    acceptsBare: (args) => isEmpty(args) || /^thread\s+(on|off)$/i.test(args.trim()),
  },
  model: {
    name: 'model',
    usage: '[tool|answer <provider/model|default> [temperature=… max_tokens=… top_p=… thinking=…]]',
    description: 'command.model',
    changesSettings: (args) => !isEmpty(args),
    acceptsBare: (args) =>
      isEmpty(args) || /^(tool|answer)\s+\S+\/\S+|^answer\s+default\b/i.test(args.trim()),
  },
  search: {
    name: 'search',
    usage: 'on|off',
    description: 'command.search',
    changesSettings: (args) => !isEmpty(args),
    acceptsBare: (args) => /^(on|off)$/i.test(args.trim()),
  },
  tools: {
    name: 'tools',
    usage: '[enable|disable <name|pattern>]',
    description: 'command.tools',
    changesSettings: (args) => !isEmpty(args),
    acceptsBare: (args) => isEmpty(args) || /^(enable|disable)\s+[\w*-]+$/i.test(args.trim()),
  },
  help: {
    name: 'help',
    usage: '',
    description: 'command.help',
    changesSettings: () => false,
    acceptsBare: isEmpty,
  },
  reset: {
    name: 'reset',
    usage: '',
    description: 'command.reset',
    changesSettings: () => false,
    acceptsBare: isEmpty,
  },
  // The conversation's own memory, like /reset: anyone in it may see or clear it. Shown privately (the
  // issue's word): a summary of a whole thread need not be posted into it for everyone again.
  memory: {
    name: 'memory',
    usage: '[clear]',
    description: 'command.memory',
    changesSettings: () => false,
    acceptsBare: (args) => /^(clear)?$/i.test(args.trim()),
    privateReply: true,
  },
  instructions: {
    name: 'instructions',
    usage: '[<text>|clear]',
    description: 'command.instructions',
    changesSettings: (args) => !isEmpty(args),
    // Bare only to show or clear: "instructions for the printer?" stays a question.
    acceptsBare: (args) => /^(clear)?$/i.test(args.trim()),
  },
  usage: {
    name: 'usage',
    usage: '',
    description: 'command.usage',
    changesSettings: () => false,
    acceptsBare: isEmpty,
    // Someone's own spend is theirs alone.
    privateReply: true,
  },
};

export interface ParsedCommand {
  /** A known command name, or the unknown word the user typed after a slash. */
  name: string;
  args: string;
  known: boolean;
}

/**
 * Reads a command from message text. With a leading slash any word is a command (unknown ones get a
 * usage reply); without one, only a known command whose arguments fit counts, so questions that
 * merely start with "help" or "search" stay questions.
 */
export function parseCommandText(text: string): ParsedCommand | undefined {
  const trimmed = text.trim();
  const match = /^(\/)?([a-zA-Z_-]+)(?:\s+([\s\S]*))?$/.exec(trimmed);
  if (!match) return undefined;
  const slash = Boolean(match[1]);
  const name = (match[2] ?? '').toLowerCase();
  const args = (match[3] ?? '').trim();
  const known = (COMMAND_NAMES as readonly string[]).includes(name);
  if (slash) return { name, args, known };
  if (known && COMMANDS[name as CommandName].acceptsBare(args)) return { name, args, known };
  return undefined;
}

/** Whether a command's reply must reach only its asker (see CommandSpec.privateReply). */
export function repliesPrivately(name: string): boolean {
  return (
    (COMMAND_NAMES as readonly string[]).includes(name) && COMMANDS[name as CommandName].privateReply === true
  );
}

/** "/mode chat|agent|plan" lines for usage and help replies. */
export function usageLine(name: CommandName): Phrase {
  const spec = COMMANDS[name];
  return joinText([`\`/${name}${spec.usage ? ` ${spec.usage}` : ''}\` — `, phrase(spec.description)]);
}

/** Where a command list is shown: a chat platform, or the terminal chat. */
export type CommandPlace = 'chat' | 'terminal';

/**
 * The one command list, for `/help` and for the reply to an unknown command alike, so the two never
 * differ. In the terminal it has no Discord-only `config thread` and ends with `/quit`, which only the
 * terminal has.
 */
export function commandList(place: CommandPlace): Phrase {
  const lines = COMMAND_NAMES.map((name) =>
    place === 'terminal' && name === 'config'
      ? joinText(['• `/config` — ', phrase('help.config.terminal')])
      : joinText(['• ', usageLine(name)]),
  );
  if (place === 'terminal') lines.push(joinText(['• `/quit` — ', phrase('help.quit.terminal')]));
  return joinText(lines, '\n');
}
