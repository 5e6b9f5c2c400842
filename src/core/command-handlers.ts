/**
 * What each command does. Surfaces only parse transport; every command goes through `runCommand`
 * here, so validation, confirmations and clearing rules are the same on Slack, Discord and console.
 */
import type { Config } from '../config/env.js';
import { joinText, type Phrase, phrase, type UserText } from '../i18n/phrase.js';
import type { StringKey } from '../i18n/strings.js';
import { looksLikeSecret } from '../llm/looks-like-secret.js';
import { checkModelConfig, modelLabel } from '../llm/model-config.js';
import type { ModelConfig } from '../llm/types.js';
import type { McpToolSource } from '../mcp/mcp-tools.js';
import type { SearchService } from '../search/types.js';
import { clearChannelConversations, clearConversation } from '../store/conversation-store.js';
import type { Stores } from '../store/types.js';
import type { CommandReply, Locale, Mode } from '../surface.js';
import type { ToolRegistry } from '../tools/types.js';
import {
  COMMANDS,
  COMMAND_NAMES,
  type CommandName,
  type CommandPlace,
  commandList,
  usageLine,
} from './commands.js';
import { instructionsConfigLine, runInstructionsCommand } from './instructions.js';
import type { ChannelSettings } from './settings.js';
import { runMemoryCommand } from './memory-command.js';
import type { SettingsService } from './settings-service.js';
import { runToolsCommand, toolsArgumentsValid } from './tools-command.js';
import { usageReport } from '../budget/usage-report.js';

export interface CommandDeps {
  config: Config;
  stores: Stores;
  settings: SettingsService;
  search: SearchService;
  tools: ToolRegistry;
  /** The MCP servers, when MCP_CONFIG names any. */
  mcp?: McpToolSource;
}

export interface CommandContext {
  channelId: string;
  conversationId?: string;
  userId: string;
  /** The asker's locale: replies are phrases, said by the adapter; `/usage` still reads it. */
  locale: Locale;
}

const PROVIDER_KEY_VARIABLE: Record<string, keyof Config['env']> = {
  openai: 'OPENAI_API_KEY',
  deepseek: 'DEEPSEEK_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  gemini: 'GEMINI_API_KEY',
  'openai-compatible': 'OPENAI_COMPATIBLE_BASE_URL',
};

export async function runCommand(
  deps: CommandDeps,
  rawName: string,
  args: string,
  ctx: CommandContext,
): Promise<CommandReply> {
  const name = rawName.replace(/^\//, '').toLowerCase();
  if (!(COMMAND_NAMES as readonly string[]).includes(name)) {
    return reply(
      joinText([phrase('usage.unknown', { command: `/${name}` }), commandList(placeOf(ctx))], '\n'),
    );
  }
  const command = name as CommandName;
  const admins = deps.config.env.ADMIN_USERS;
  // A reset without a conversation (a Slack slash command carries no thread) clears every
  // conversation of the channel, other people's included: as much an admin matter as a setting.
  const adminOnly = COMMANDS[command].changesSettings(args) || (command === 'reset' && !ctx.conversationId);
  if (admins.length > 0 && adminOnly && !admins.includes(ctx.userId)) {
    return reply(phrase('error.admin-only'));
  }
  switch (command) {
    case 'mode':
      return setMode(deps, args, ctx);
    case 'search':
      return setSearch(deps, args, ctx);
    case 'model':
      return setModel(deps, args, ctx);
    case 'config':
      return args.trim() === '' ? reply(await describeConfig(deps, ctx)) : setConfig(deps, args, ctx);
    case 'tools':
      return toolsArgumentsValid(args) ? runToolsCommand(deps, args, ctx) : reply(usage('tools'));
    case 'help':
      return reply(helpText(placeOf(ctx) === 'terminal'));
    case 'instructions':
      return runInstructionsCommand(deps, args, ctx);
    case 'reset':
      if (ctx.conversationId) await clearConversation(deps.stores, ctx.conversationId);
      else await clearChannelConversations(deps.stores, ctx.channelId);
      await deps.search.clearSession(ctx.channelId);
      return { text: phrase('reset.done'), changed: true };
    case 'memory':
      return runMemoryCommand(deps, args, ctx);
    case 'usage':
      return usageReport({
        config: deps.config,
        stores: deps.stores,
        userId: ctx.userId,
        locale: ctx.locale,
      });
  }
}

/** The terminal chat's channel (adapters/console): its help and settings leave out mentions and threads. */
function isTerminal(ctx: Pick<CommandContext, 'channelId'>): boolean {
  return ctx.channelId.startsWith('console:');
}

function placeOf(ctx: Pick<CommandContext, 'channelId'>): CommandPlace {
  return isTerminal(ctx) ? 'terminal' : 'chat';
}

export function helpText(terminal = false): Phrase {
  return phrase('help.text', {
    howToAsk: phrase(terminal ? 'help.how-to-ask.terminal' : 'help.how-to-ask'),
    chat: phrase('mode.chat.description'),
    agent: phrase('mode.agent.description'),
    plan: phrase('mode.plan.description'),
    commands: commandList(terminal ? 'terminal' : 'chat'),
  });
}

export function modeName(mode: Mode): Phrase {
  return phrase(`mode.${mode}.name`);
}

export function modeDescription(mode: Mode): Phrase {
  return phrase(`mode.${mode}.description`);
}

async function setMode(deps: CommandDeps, args: string, ctx: CommandContext): Promise<CommandReply> {
  const wanted = args.trim().toLowerCase();
  const current = await deps.settings.get(ctx.channelId);
  if (wanted === '') {
    return reply(
      joinText(
        [
          phrase('mode.unchanged', {
            name: modeName(current.mode),
            description: modeDescription(current.mode),
          }),
          usage('mode'),
        ],
        '\n',
      ),
    );
  }
  if (wanted !== 'chat' && wanted !== 'agent' && wanted !== 'plan') return reply(usage('mode'));
  const mode: Mode = wanted;
  const patch: Partial<ChannelSettings> = { mode };
  // The search switch belongs to chat mode: leaving chat saves it, returning restores it.
  if (current.mode === 'chat' && mode !== 'chat') {
    patch.savedSearch = current.search;
    patch.search = false;
  } else if (current.mode !== 'chat' && mode === 'chat') {
    patch.search = current.savedSearch ?? false;
  }
  await deps.settings.update(ctx.channelId, patch);
  await clearChannelState(deps, ctx.channelId);
  return {
    text: phrase('mode.switched', { name: modeName(mode), description: modeDescription(mode) }),
    changed: true,
  };
}

/**
 * `/config thread on|off`: whether a mention in this channel opens a thread (default) or is answered
 * in place (SPEC 1.2, Discord). Slack always answers in the message's thread, so it only says so.
 */
async function setConfig(deps: CommandDeps, args: string, ctx: CommandContext): Promise<CommandReply> {
  const match = /^thread\s+(on|off)$/i.exec(args.trim());
  if (!match) return reply(usage('config'));
  const replyInThread = match[1]!.toLowerCase() === 'on';
  await deps.settings.update(ctx.channelId, { replyInThread });
  return { text: phrase(replyInThread ? 'thread.set-on' : 'thread.set-off'), changed: true };
}

async function setSearch(deps: CommandDeps, args: string, ctx: CommandContext): Promise<CommandReply> {
  const wanted = args.trim().toLowerCase();
  if (wanted === '') {
    // No argument: say where it stands, then how to change it.
    const settings = await deps.settings.get(ctx.channelId);
    return reply(joinText([phrase('config.search'), ': ', searchState(settings), '\n', usage('search')]));
  }
  if (wanted !== 'on' && wanted !== 'off') return reply(usage('search'));
  const current = await deps.settings.get(ctx.channelId);
  if (current.mode !== 'chat') {
    return reply(phrase('search.not-in-chat', { note: phrase('search.agent-note') }));
  }
  await deps.settings.update(ctx.channelId, { search: wanted === 'on' });
  const text = phrase(wanted === 'on' ? 'search.on' : 'search.off');
  const warning = wanted === 'on' && !deps.search.available;
  return { text: warning ? joinText([text, phrase('search.unavailable')], '\n') : text, changed: true };
}

async function setModel(deps: CommandDeps, args: string, ctx: CommandContext): Promise<CommandReply> {
  const current = await deps.settings.get(ctx.channelId);
  const parts = args.trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0) {
    return reply(
      joinText(
        [
          phrase('model.show', {
            tool: describeModel(current.toolModel),
            answer: current.answerModel ? describeModel(current.answerModel) : phrase('model.same'),
          }),
          usage('model'),
        ],
        '\n',
      ),
    );
  }
  const role = parts[0]?.toLowerCase();
  const spec = parts[1];
  if ((role !== 'tool' && role !== 'answer') || !spec) return reply(usage('model'));
  const roleName = phrase(role === 'tool' ? 'model.role.tool' : 'model.role.answer');
  if (role === 'answer' && spec.toLowerCase() === 'default') {
    await deps.settings.update(ctx.channelId, { answerModel: null });
    await clearChannelState(deps, ctx.channelId);
    return {
      text: phrase('model.set', { role: roleName, model: phrase('model.same') }),
      changed: true,
    };
  }
  const parsed = parseModelArguments(spec, parts.slice(2), deps.config);
  if ('problems' in parsed) {
    return reply(
      joinText(
        [
          phrase('model.invalid'),
          ...parsed.problems.map((problem) => joinText(['• ', problem])),
          usage('model'),
        ],
        '\n',
      ),
    );
  }
  const { model } = parsed;
  await deps.settings.update(ctx.channelId, role === 'tool' ? { toolModel: model } : { answerModel: model });
  await clearChannelState(deps, ctx.channelId);
  return { text: phrase('model.set', { role: roleName, model: describeModel(model) }), changed: true };
}

/**
 * `provider/model temperature=0.3 max_tokens=1000 top_p=0.9` → a validated ModelConfig, or what is
 * wrong with the arguments.
 */
export function parseModelArguments(
  spec: string,
  options: string[],
  config: Config,
): { model: ModelConfig } | { problems: UserText[] } {
  // A key pasted by mistake is refused before anything could show it back or save it.
  if (looksLikeSecret(spec) || options.some(looksLikeSecret)) {
    return { problems: [phrase('model.looks-like-secret')] };
  }
  const slash = spec.indexOf('/');
  if (slash <= 0) return { problems: [phrase('model.expected-spec', { spec })] };
  const input: Record<string, unknown> = { provider: spec.slice(0, slash), model: spec.slice(slash + 1) };
  for (const option of options) {
    const [key, value] = option.split('=', 2);
    if (!key || value === undefined || !['temperature', 'max_tokens', 'top_p', 'thinking'].includes(key)) {
      return { problems: [phrase('model.unknown-option', { option })] };
    }
    input[key] = value;
  }
  const { config: model, problems } = checkModelConfig(input, {
    temperature: config.env.DEFAULT_TEMPERATURE,
    maxTokens: config.env.DEFAULT_MAX_TOKENS,
    deepseekVariant: config.env.DEEPSEEK_MODEL_VARIANT,
  });
  if (!model) return { problems };
  const keyVariable = PROVIDER_KEY_VARIABLE[model.provider];
  if (keyVariable && !config.env[keyVariable]) {
    return { problems: [phrase('model.key-missing', { variable: keyVariable, provider: model.provider })] };
  }
  return { model };
}

export function describeModel(model: ModelConfig): string {
  const extra = [`temperature=${model.temperature}`];
  if (model.maxTokens !== undefined) extra.push(`max_tokens=${model.maxTokens}`);
  if (model.topP !== undefined) extra.push(`top_p=${model.topP}`);
  if (model.thinking !== undefined) extra.push(`thinking=${model.thinking}`);
  return `\`${modelLabel(model)}\` (${extra.join(', ')})`;
}

async function describeConfig(deps: CommandDeps, ctx: CommandContext): Promise<Phrase> {
  const s = await deps.settings.get(ctx.channelId);
  const env = deps.config.env;
  const terminal = isTerminal(ctx);
  // Only names and numbers: never a key, token or URL with credentials.
  const lines: Phrase[] = [
    phrase(terminal ? 'config.title.terminal' : 'config.title'),
    item('config.mode', joinText([modeName(s.mode), modeDescription(s.mode)], ' — ')),
    item('config.search', searchState(s)),
    item('config.tool-model', describeModel(s.toolModel)),
    item('config.answer-model', s.answerModel ? describeModel(s.answerModel) : phrase('model.same')),
    item(
      'config.limits',
      phrase('config.limits.value', {
        iterations: env.AGENT_MAX_ITERATIONS,
        seconds: env.AGENT_MAX_EXECUTION_TIME,
      }),
    ),
    joinText(['• ', instructionsConfigLine(s, deps.config)]),
    item('config.search-provider', deps.search.available ? deps.search.providerName : phrase('none')),
    item('config.store', deps.stores.backend),
  ];
  // Where mentions are answered is a Discord matter; the terminal has no mentions.
  if (!terminal) {
    const thread = phrase(s.replyInThread ? 'config.thread.on' : 'config.thread.off');
    lines.splice(lines.length - 2, 0, item('config.thread', thread));
  }
  // Names, states and counts only: a server's command, URL, env and headers may hold secrets.
  const servers = deps.mcp?.status() ?? [];
  if (servers.length > 0) {
    const described = servers.map((s) => `${s.name} (${s.transport}, ${s.state}, ${s.tools})`).join(', ');
    lines.push(item('config.mcp', described));
  }
  return joinText(lines, '\n');
}

/** A `/config` line: "• Label: value". */
function item(label: StringKey, value: UserText): Phrase {
  return joinText(['• ', phrase(label), ': ', value]);
}

function searchState(s: { mode: string; search: boolean }): Phrase {
  return s.mode === 'chat'
    ? phrase(s.search ? 'on' : 'off')
    : joinText([phrase('off'), phrase('search.agent-note')], ' — ');
}

/** A mode or model switch starts the channel afresh: histories and search cache go. */
async function clearChannelState(deps: CommandDeps, channelId: string): Promise<void> {
  await clearChannelConversations(deps.stores, channelId);
  await deps.search.clearSession(channelId);
}

function usage(name: CommandName): Phrase {
  return joinText([phrase('usage.intro'), usageLine(name)], ' ');
}

function reply(text: UserText): CommandReply {
  return { text, changed: false };
}
