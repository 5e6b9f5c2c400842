/**
 * Settings: a modal <dialog> (showModal makes the rest of the page inert, so focus stays inside, and
 * Escape closes it) with the controls PROTOCOL.md names. GET /api/settings fills it, Save PUTs it;
 * the server validates as the slash commands do and its problems show in the dialog.
 * The numbers (temperature, max tokens, top p, thinking) apply to both models: one set of fields
 * keeps the dialog small, and a separate answer model is the rarer case.
 */
import { ApiError, api } from './api.js';
import { h, show, uid } from './dom.js';
import type { ModelSetting, Settings } from './protocol.js';
import { S } from './strings.js';

function field(label: string, control: HTMLElement, hint?: HTMLElement): HTMLElement {
  const id = control.id || uid('field');
  control.id = id;
  const isCheck = control instanceof HTMLInputElement && control.type === 'checkbox';
  const labelEl = h('label', { for: id }, label);
  return isCheck
    ? h('div', { class: 'field check' }, control, labelEl, hint ?? null)
    : h('div', { class: 'field' }, labelEl, control, hint ?? null);
}

const option = (value: string, text: string) => h('option', { value }, text);

function numberInput(step: string, min: string, max?: string): HTMLInputElement {
  return h('input', { type: 'number', step, min, max, inputmode: 'decimal' });
}

export class SettingsDialog {
  readonly el: HTMLDialogElement;
  private readonly mode = h(
    'select',
    {},
    option('chat', S.modeChat),
    option('agent', S.modeAgent),
    option('plan', S.modePlan),
  );
  private readonly search = h('input', { type: 'checkbox' });
  private readonly toolModel = h('select', {});
  private readonly answerModel = h('select', {});
  private readonly temperature = numberInput('0.1', '0', '2');
  private readonly maxTokens = numberInput('1', '1');
  private readonly topP = numberInput('0.05', '0', '1');
  private readonly thinking = numberInput('1', '0');
  private readonly problems = h('div', { class: 'problems error', role: 'alert' });
  private readonly saveButton = h('button', { type: 'submit', class: 'primary' }, S.save);
  private loaded: Settings | null = null;
  private opener: HTMLElement | null = null;

  constructor(
    private models: string[],
    private readonly onSaved: () => void,
  ) {
    const titleId = uid('settings-title');
    const cancel = h('button', { type: 'button' }, S.cancel);
    cancel.addEventListener('click', () => this.close());
    const form = h(
      'form',
      // novalidate: the server checks the values as the slash commands do, and its sentences show
      // here in the page's words; min/max stay as hints for the number inputs' steppers.
      { method: 'dialog', class: 'settings-form', novalidate: true },
      h('h2', { id: titleId }, S.settings),
      field(S.mode, this.mode),
      field(S.webSearch, this.search, h('p', { class: 'hint' }, S.webSearchHint)),
      field(S.toolModel, this.toolModel),
      field(S.answerModel, this.answerModel),
      h(
        'fieldset',
        { class: 'numbers' },
        h('legend', {}, S.numbersApply),
        field(S.temperature, this.temperature),
        field(S.maxTokens, this.maxTokens),
        field(S.topP, this.topP),
        field(S.thinking, this.thinking),
      ),
      this.problems,
      h('div', { class: 'dialog-buttons' }, this.saveButton, cancel),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.save();
    });
    this.el = h('dialog', { class: 'settings', 'aria-labelledby': titleId, 'aria-modal': 'true' }, form);
    this.el.addEventListener('close', () => this.opener?.focus());
    show(this.problems, false);
  }

  setModels(models: string[]): void {
    this.models = models;
  }

  async open(opener: HTMLElement): Promise<void> {
    this.opener = opener;
    this.setProblems([]);
    const settings = await api.get<Settings>('/api/settings');
    this.fill(settings);
    this.el.showModal();
    this.mode.focus();
  }

  close(): void {
    this.el.close();
  }

  private fill(s: Settings): void {
    this.loaded = s;
    this.mode.value = s.mode;
    this.search.checked = s.search;
    const models = [
      ...new Set([...this.models, s.toolModel.model, ...(s.answerModel ? [s.answerModel.model] : [])]),
    ];
    this.toolModel.replaceChildren(...models.map((m) => option(m, m)));
    this.toolModel.value = s.toolModel.model;
    this.answerModel.replaceChildren(option('', S.sameModel), ...models.map((m) => option(m, m)));
    this.answerModel.value = s.answerModel?.model ?? '';
    this.temperature.value = String(s.toolModel.temperature);
    this.maxTokens.value = s.toolModel.maxTokens === undefined ? '' : String(s.toolModel.maxTokens);
    this.topP.value = s.toolModel.topP === undefined ? '' : String(s.toolModel.topP);
    this.thinking.value = s.toolModel.thinking === undefined ? '' : String(s.toolModel.thinking);
  }

  /** The form as Settings; empty optional numbers are left out (the model's default). */
  private read(): Settings {
    const num = (input: HTMLInputElement) => (input.value.trim() === '' ? undefined : Number(input.value));
    const params: Omit<ModelSetting, 'model'> = { temperature: num(this.temperature) ?? Number.NaN };
    const maxTokens = num(this.maxTokens);
    const topP = num(this.topP);
    const thinking = num(this.thinking);
    if (maxTokens !== undefined) params.maxTokens = maxTokens;
    if (topP !== undefined) params.topP = topP;
    if (thinking !== undefined) params.thinking = thinking;
    const answer = this.answerModel.value;
    return {
      mode: this.mode.value as Settings['mode'],
      search: this.search.checked,
      toolModel: { model: this.toolModel.value, ...params },
      answerModel: answer ? { model: answer, ...params } : null,
    };
  }

  private setProblems(problems: string[]): void {
    this.problems.replaceChildren(
      ...(problems.length > 1 ? [h('ul', {}, ...problems.map((p) => h('li', {}, p)))] : problems),
    );
    show(this.problems, problems.length > 0);
  }

  private async save(): Promise<void> {
    this.saveButton.disabled = true;
    try {
      const body = this.read();
      if (Number.isNaN(body.toolModel.temperature))
        body.toolModel.temperature = this.loaded?.toolModel.temperature ?? 0.7;
      await api.send<{ settings: Settings }>('PUT', '/api/settings', body);
      this.close();
      this.onSaved();
    } catch (err) {
      if (err instanceof ApiError) this.setProblems(err.problems.length > 0 ? err.problems : [err.message]);
      else this.setProblems([S.failed]);
    } finally {
      this.saveButton.disabled = false;
    }
  }
}
