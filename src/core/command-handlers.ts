/**
 * What each command does. Surfaces only parse transport; every command goes through `runCommand`
 * here, so validation, confirmations and clearing rules are the same on Slack, Discord and console.
 */
import type { Config } from '../config/env.js';
import { ConfigError } from '../errors.js';
import { t } from '../i18n/translate.js';
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
  allUsageLines,
  terminalUsageLines,
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
  const { locale } = ctx;
  if (!(COMMAND_NAMES as readonly string[]).includes(name)) {
    return reply(`${t(locale, 'usage.unknown', { command: `/${name}` })}\n${allUsageLines(locale)}`);
  }
  const command = name as CommandName;
  const admins = deps.config.env.ADMIN_USERS;
  // A reset without a conversation (a Slack slash command carries no thread) clears every
  // conversation of the channel, other people's included: as much an admin matter as a setting.
  const adminOnly = COMMANDS[command].changesSettings(args) || (command === 'reset' && !ctx.conversationId);
  if (admins.length > 0 && adminOnly && !admins.includes(ctx.userId)) {
    return reply(t(locale, 'error.admin-only'));
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
      return toolsArgumentsValid(args) ? runToolsCommand(deps, args, ctx) : reply(usage('tools', locale));
    case 'help':
      return reply(helpText(locale, isTerminal(ctx)));
    case 'instructions':
      return runInstructionsCommand(deps, args, ctx);
    case 'reset':
      if (ctx.conversationId) await clearConversation(deps.stores, ctx.conversationId);
      else await clearChannelConversations(deps.stores, ctx.channelId);
      await deps.search.clearSession(ctx.channelId);
      return { text: t(locale, 'reset.done'), changed: true };
    case 'memory':
      return runMemoryCommand(deps, args, ctx);
    case 'usage':
      return usageReport({ config: deps.config, stores: deps.stores, userId: ctx.userId, locale });
  }
}

/** The terminal chat's channel (adapters/console): its help and settings leave out mentions and threads. */
function isTerminal(ctx: Pick<CommandContext, 'channelId'>): boolean {
  return ctx.channelId.startsWith('console:');
}

export function helpText(locale: Locale, terminal = false): string {
  return t(locale, 'help.text', {
    howToAsk: t(locale, terminal ? 'help.how-to-ask.terminal' : 'help.how-to-ask'),
    chat: t(locale, 'mode.chat.description'),
    agent: t(locale, 'mode.agent.description'),
    plan: t(locale, 'mode.plan.description'),
    commands: terminal ? terminalUsageLines(locale) : allUsageLines(locale),
  });
}

export function modeName(mode: Mode, locale: Locale): string {
  return t(locale, `mode.${mode}.name`);
}

export function modeDescription(mode: Mode, locale: Locale): string {
  return t(locale, `mode.${mode}.description`);
}

async function setMode(deps: CommandDeps, args: string, ctx: CommandContext): Promise<CommandReply> {
  const { locale } = ctx;
  const wanted = args.trim().toLowerCase();
  const current = await deps.settings.get(ctx.channelId);
  if (wanted === '') {
    return reply(
      `${t(locale, 'mode.unchanged', { name: modeName(current.mode, locale), description: modeDescription(current.mode, locale) })}\n${usage('mode', locale)}`,
    );
  }
  if (wanted !== 'chat' && wanted !== 'agent' && wanted !== 'plan') return reply(usage('mode', locale));
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
    text: t(locale, 'mode.switched', {
      name: modeName(mode, locale),
      description: modeDescription(mode, locale),
    }),
    changed: true,
  };
}

/**
 * `/config thread on|off`: whether a mention in this channel opens a thread (default) or is answered
 * in place (SPEC 1.2, Discord). Slack always answers in the message's thread, so it only says so.
 */
async function setConfig(deps: CommandDeps, args: string, ctx: CommandContext): Promise<CommandReply> {
  const { locale } = ctx;
  const match = /^thread\s+(on|off)$/i.exec(args.trim());
  if (!match) return reply(usage('config', locale));
  const replyInThread = match[1]!.toLowerCase() === 'on';
  await deps.settings.update(ctx.channelId, { replyInThread });
  return { text: t(locale, replyInThread ? 'thread.set-on' : 'thread.set-off'), changed: true };
}

async function setSearch(deps: CommandDeps, args: string, ctx: CommandContext): Promise<CommandReply> {
  const { locale } = ctx;
  const wanted = args.trim().toLowerCase();
  if (wanted === '') {
    // No argument: say where it stands, then how to change it.
    const settings = await deps.settings.get(ctx.channelId);
    return reply(
      `${t(locale, 'config.search')}: ${searchState(settings, locale)}\n${usage('search', locale)}`,
    );
  }
  if (wanted !== 'on' && wanted !== 'off') return reply(usage('search', locale));
  const current = await deps.settings.get(ctx.channelId);
  if (current.mode !== 'chat') {
    return reply(t(locale, 'search.not-in-chat', { note: t(locale, 'search.agent-note') }));
  }
  await deps.settings.update(ctx.channelId, { search: wanted === 'on' });
  const text = wanted === 'on' ? t(locale, 'search.on') : t(locale, 'search.off');
  const warning = wanted === 'on' && !deps.search.available ? `\n${t(locale, 'search.unavailable')}` : '';
  return { text: text + warning, changed: true };
}

async function setModel(deps: CommandDeps, args: string, ctx: CommandContext): Promise<CommandReply> {
  const { locale } = ctx;
  const current = await deps.settings.get(ctx.channelId);
  const parts = args.trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0) {
    return reply(
      `${t(locale, 'model.show', {
        tool: describeModel(current.toolModel),
        answer: current.answerModel ? describeModel(current.answerModel) : t(locale, 'model.same'),
      })}\n${usage('model', locale)}`,
    );
  }
  const role = parts[0]?.toLowerCase();
  const spec = parts[1];
  if ((role !== 'tool' && role !== 'answer') || !spec) return reply(usage('model', locale));
  const roleName = t(locale, role === 'tool' ? 'model.role.tool' : 'model.role.answer');
  if (role === 'answer' && spec.toLowerCase() === 'default') {
    await deps.settings.update(ctx.channelId, { answerModel: null });
    await clearChannelState(deps, ctx.channelId);
    return {
      text: t(locale, 'model.set', { role: roleName, model: t(locale, 'model.same') }),
      changed: true,
    };
  }
  let model: ModelConfig;
  try {
    model = parseModelArguments(spec, parts.slice(2), deps.config, locale);
  } catch (err) {
    const problems = err instanceof ConfigError ? err.problems : [String(err)];
    return reply(
      `${t(locale, 'model.invalid')}\n${problems.map((p) => `• ${p}`).join('\n')}\n${usage('model', locale)}`,
    );
  }
  await deps.settings.update(ctx.channelId, role === 'tool' ? { toolModel: model } : { answerModel: model });
  await clearChannelState(deps, ctx.channelId);
  return { text: t(locale, 'model.set', { role: roleName, model: describeModel(model) }), changed: true };
}

/** `provider/model temperature=0.3 max_tokens=1000 top_p=0.9` → a validated ModelConfig. */
export function parseModelArguments(
  spec: string,
  options: string[],
  config: Config,
  locale: Locale = 'en',
): ModelConfig {
  // A key pasted by mistake is refused before anything could show it back or save it.
  if (looksLikeSecret(spec) || options.some(looksLikeSecret)) {
    throw new ConfigError([t(locale, 'model.looks-like-secret')]);
  }
  const slash = spec.indexOf('/');
  if (slash <= 0) throw new ConfigError([t(locale, 'model.expected-spec', { spec })]);
  const input: Record<string, unknown> = { provider: spec.slice(0, slash), model: spec.slice(slash + 1) };
  for (const option of options) {
    const [key, value] = option.split('=', 2);
    if (!key || value === undefined || !['temperature', 'max_tokens', 'top_p', 'thinking'].includes(key)) {
      throw new ConfigError([t(locale, 'model.unknown-option', { option })]);
    }
    input[key] = value;
  }
  const { config: model, problems } = checkModelConfig(input, {
    temperature: config.env.DEFAULT_TEMPERATURE,
    maxTokens: config.env.DEFAULT_MAX_TOKENS,
    deepseekVariant: config.env.DEEPSEEK_MODEL_VARIANT,
  });
  if (!model) throw new ConfigError(problems);
  const keyVariable = PROVIDER_KEY_VARIABLE[model.provider];
  if (keyVariable && !config.env[keyVariable]) {
    throw new ConfigError([
      t(locale, 'model.key-missing', { variable: keyVariable, provider: model.provider }),
    ]);
  }
  return model;
}

export function describeModel(model: ModelConfig): string {
  const extra = [`temperature=${model.temperature}`];
  if (model.maxTokens !== undefined) extra.push(`max_tokens=${model.maxTokens}`);
  if (model.topP !== undefined) extra.push(`top_p=${model.topP}`);
  if (model.thinking !== undefined) extra.push(`thinking=${model.thinking}`);
  return `\`${modelLabel(model)}\` (${extra.join(', ')})`;
}

async function describeConfig(deps: CommandDeps, ctx: CommandContext): Promise<string> {
  const { locale } = ctx;
  const s = await deps.settings.get(ctx.channelId);
  const env = deps.config.env;
  const terminal = isTerminal(ctx);
  // Only names and numbers: never a key, token or URL with credentials.
  const lines = [
    t(locale, terminal ? 'config.title.terminal' : 'config.title'),
    `• ${t(locale, 'config.mode')}: ${modeName(s.mode, locale)} — ${modeDescription(s.mode, locale)}`,
    `• ${t(locale, 'config.search')}: ${searchState(s, locale)}`,
    `• ${t(locale, 'config.tool-model')}: ${describeModel(s.toolModel)}`,
    `• ${t(locale, 'config.answer-model')}: ${s.answerModel ? describeModel(s.answerModel) : t(locale, 'model.same')}`,
    `• ${t(locale, 'config.limits')}: ${t(locale, 'config.limits.value', { iterations: env.AGENT_MAX_ITERATIONS, seconds: env.AGENT_MAX_EXECUTION_TIME })}`,
    `• ${instructionsConfigLine(s, deps.config, locale)}`,
    `• ${t(locale, 'config.search-provider')}: ${deps.search.available ? deps.search.providerName : t(locale, 'none')}`,
    `• ${t(locale, 'config.store')}: ${deps.stores.backend}`,
  ];
  // Where mentions are answered is a Discord matter; the terminal has no mentions.
  if (!terminal) {
    const thread = t(locale, s.replyInThread ? 'config.thread.on' : 'config.thread.off');
    lines.splice(lines.length - 2, 0, `• ${t(locale, 'config.thread')}: ${thread}`);
  }
  // Names, states and counts only: a server's command, URL, env and headers may hold secrets.
  const servers = deps.mcp?.status() ?? [];
  if (servers.length > 0) {
    const described = servers.map((s) => `${s.name} (${s.transport}, ${s.state}, ${s.tools})`).join(', ');
    lines.push(`• ${t(locale, 'config.mcp')}: ${described}`);
  }
  return lines.join('\n');
}

function searchState(s: { mode: string; search: boolean }, locale: Locale): string {
  return s.mode === 'chat'
    ? t(locale, s.search ? 'on' : 'off')
    : `${t(locale, 'off')} — ${t(locale, 'search.agent-note')}`;
}

/** A mode or model switch starts the channel afresh: histories and search cache go. */
async function clearChannelState(deps: CommandDeps, channelId: string): Promise<void> {
  await clearChannelConversations(deps.stores, channelId);
  await deps.search.clearSession(channelId);
}

function usage(name: CommandName, locale: Locale): string {
  return `${t(locale, 'usage.intro')} ${usageLine(name, locale)}`;
}

function reply(text: string): CommandReply {
  return { text, changed: false };
}
