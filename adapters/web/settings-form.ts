/**
 * The Settings dialog's form, applied through the very commands a user could type (`/mode`,
 * `/search`, `/model tool …`, `/model answer …`), so the dialog validates exactly as they do and says
 * the same thing when something is wrong. Only what changed is applied.
 */
import { modelLabel } from '../../src/llm/model-config.js';
import type { ModelConfig } from '../../src/llm/types.js';
import type { ChannelSettings, CommandContext, ScoutCore } from '../../src/surface.js';
import { say } from '../../src/i18n/say.js';
import type { Locale } from '../../src/i18n/locale.js';
import { HttpError } from './http-kit.js';

export interface ModelSetting {
  model: string;
  temperature: number;
  maxTokens?: number;
  topP?: number;
  thinking?: number;
}

export interface SettingsForm {
  mode: ChannelSettings['mode'];
  search: boolean;
  toolModel: ModelSetting;
  answerModel: ModelSetting | null;
}

export function toForm(settings: ChannelSettings): SettingsForm {
  return {
    mode: settings.mode,
    search: settings.search,
    toolModel: toSetting(settings.toolModel),
    answerModel: settings.answerModel ? toSetting(settings.answerModel) : null,
  };
}

function toSetting(model: ModelConfig): ModelSetting {
  return {
    model: modelLabel(model),
    temperature: model.temperature,
    ...(model.maxTokens !== undefined ? { maxTokens: model.maxTokens } : {}),
    ...(model.topP !== undefined ? { topP: model.topP } : {}),
    ...(model.thinking !== undefined ? { thinking: model.thinking } : {}),
  };
}

/** `provider/model`: no spaces (a space would smuggle another option into the command). */
const MODEL_SPEC = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.:/@+-]{1,200}$/;

function finite(value: unknown, field: string, problems: string[]): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n)) {
    problems.push(`${field}: must be a number`);
    return undefined;
  }
  return n;
}

/** The `/model` arguments of a form's model, or problems. */
function modelArguments(value: unknown, field: string, problems: string[]): string | undefined {
  if (!value || typeof value !== 'object') {
    problems.push(`${field}: missing`);
    return undefined;
  }
  const m = value as Record<string, unknown>;
  if (typeof m.model !== 'string' || !MODEL_SPEC.test(m.model.trim())) {
    problems.push(`${field}: expected provider/model, e.g. openai/gpt-4.1-mini`);
    return undefined;
  }
  const parts = [m.model.trim()];
  const options: Array<[string, string]> = [
    ['temperature', 'temperature'],
    ['maxTokens', 'max_tokens'],
    ['topP', 'top_p'],
    ['thinking', 'thinking'],
  ];
  for (const [key, option] of options) {
    const n = finite(m[key], `${field} ${option}`, problems);
    if (n !== undefined) parts.push(`${option}=${n}`);
  }
  return parts.join(' ');
}

/**
 * Applies the form with the core's commands; resolves with the settings after, or throws a 422
 * HttpError listing what the commands refused (nothing after the first refusal is applied).
 */
export async function applySettings(
  core: ScoutCore,
  context: CommandContext,
  body: Record<string, unknown>,
  locale: Locale,
): Promise<SettingsForm> {
  const before = toForm(await core.getSettings(context.channelId));
  const problems: string[] = [];
  const commands: Array<[string, string]> = [];
  if (body.mode !== undefined) {
    if (body.mode !== 'chat' && body.mode !== 'agent' && body.mode !== 'plan')
      problems.push('mode: chat, agent or plan');
    else if (body.mode !== before.mode) commands.push(['mode', body.mode]);
  }
  const tool =
    body.toolModel === undefined ? undefined : modelArguments(body.toolModel, 'toolModel', problems);
  const answer =
    body.answerModel === undefined || body.answerModel === null
      ? body.answerModel
      : modelArguments(body.answerModel, 'answerModel', problems);
  if (problems.length > 0) throw new HttpError(422, 'Some settings are not valid.', { problems });
  if (tool !== undefined && tool !== modelArguments(before.toolModel, 'toolModel', [])) {
    commands.push(['model', `tool ${tool}`]);
  }
  if (answer === null && before.answerModel !== null) commands.push(['model', 'answer default']);
  else if (
    typeof answer === 'string' &&
    answer !== (before.answerModel ? modelArguments(before.answerModel, '', []) : undefined)
  ) {
    commands.push(['model', `answer ${answer}`]);
  }
  // After the mode: /mode remembers and restores the search switch around chat mode.
  if (typeof body.search === 'boolean' && body.search !== before.search)
    commands.push(['search', body.search ? 'on' : 'off']);
  for (const [name, args] of commands) {
    const reply = await core.runCommand(name, args, context);
    if (!reply.changed) {
      throw new HttpError(422, say(locale, reply.text), { problems: [say(locale, reply.text)] });
    }
  }
  return toForm(await core.getSettings(context.channelId));
}
