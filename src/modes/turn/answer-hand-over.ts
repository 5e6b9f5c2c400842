/**
 * The hand-over from the model that ran the tools (agent rounds, plan steps) to the model that writes
 * the answer: a collapsed step saying why and naming both (seed 001 "模型切换提示"), nothing when
 * one model does both; then the phase label and status line of the answer phase.
 */
import { type UserText, phrase } from '../../i18n/phrase.js';
import type { LlmClient } from '../../llm/types.js';
import type { TurnEvent } from '../../render/events.js';

export function emitAnswerHandOver(
  emit: (event: TurnEvent) => void,
  switched: { reason: UserText; from: LlmClient; to: LlmClient },
): void {
  const { reason, from, to } = switched;
  if (to !== from) {
    emit({
      type: 'step-start',
      id: 'model-switch',
      kind: 'model-switch',
      title: phrase('step.model-switch'),
      body: phrase('step.model-switch.body', { reason, tool: from.label, answer: to.label }),
      status: 'info',
    });
    emit({ type: 'step-finish', id: 'model-switch', status: 'info', collapse: true });
  }
  emit({ type: 'phase', role: 'answer', label: to.label });
  emit({ type: 'status', text: phrase('status.answering') });
}
