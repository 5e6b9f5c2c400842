/**
 * The Settings dialog's form, applied through the very commands a user could type (`/mode`,
 * `/search`, `/model tool …`, `/model answer …`), so the dialog validates exactly as they do and says
 * the same thing when something is wrong. Only what changed is applied.
 */
import { modelLabel } from '../../src/llm/model-config.js';
import type { ModelConfig } from '../../src/llm/types.js';
import type { ChannelSettings, CommandContext, ScoutCore } from '../../src/surface.js';
import { joinText, phrase, type UserText } from '../../src/i18n/phrase.js';
import type { ModelSetting, Settings as SettingsForm } from './client/protocol.js';
import { HttpError } from './http-kit.js';

export type { ModelSetting, Settings as SettingsForm } from './client/protocol.js';

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

/** The form's models, named as `/model` names them. */
const TOOL_MODEL = phrase('model.role.tool');
const ANSWER_MODEL = phrase('model.role.answer');

/** `provider/model`: no spaces (a space would smuggle another option into the command). */
const MODEL_SPEC = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.:/@+-]{1,200}$/;

function finite(value: unknown, field: UserText, problems: UserText[]): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n)) {
    problems.push(phrase('web.settings.number', { field }));
    return undefined;
  }
  return n;
}

/** The `/model` arguments of a form's model, or problems. */
function modelArguments(value: unknown, field: UserText, problems: UserText[]): string | undefined {
  const m = value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  if (typeof m.model !== 'string' || !MODEL_SPEC.test(m.model.trim())) {
    problems.push(phrase('web.settings.model', { field }));
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
    const n = finite(m[key], joinText([field, ` ${option}`]), problems);
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
): Promise<SettingsForm> {
  const problems: UserText[] = [];
  const mode = body.mode;
  if (mode !== undefined && mode !== 'chat' && mode !== 'agent' && mode !== 'plan') {
    problems.push(phrase('web.settings.mode'));
  }
  const tool =
    body.toolModel === undefined ? undefined : modelArguments(body.toolModel, TOOL_MODEL, problems);
  const answer =
    body.answerModel === undefined || body.answerModel === null
      ? body.answerModel
      : modelArguments(body.answerModel, ANSWER_MODEL, problems);
  if (problems.length > 0) throw new HttpError(422, phrase('web.settings.invalid'), problems);
  // Each command as a user would type it, in this order: /mode remembers and restores the search
  // switch around chat mode, so the search switch is compared with the settings after it.
  const run = async (name: string, args: string) => {
    const reply = await core.runCommand(name, args, context);
    if (!reply.changed) throw new HttpError(422, phrase('web.settings.invalid'), [reply.text]);
  };
  let current = toForm(await core.getSettings(context.channelId));
  if (typeof mode === 'string' && mode !== current.mode) await run('mode', mode);
  if (tool !== undefined && tool !== modelArguments(current.toolModel, TOOL_MODEL, [])) {
    await run('model', `tool ${tool}`);
  }
  if (answer === null && current.answerModel !== null) await run('model', 'answer default');
  else if (
    typeof answer === 'string' &&
    answer !== (current.answerModel ? modelArguments(current.answerModel, ANSWER_MODEL, []) : undefined)
  ) {
    await run('model', `answer ${answer}`);
  }
  current = toForm(await core.getSettings(context.channelId));
  if (typeof body.search === 'boolean' && body.search !== current.search) {
    await run('search', body.search ? 'on' : 'off');
    current = toForm(await core.getSettings(context.channelId));
  }
  return current;
}
