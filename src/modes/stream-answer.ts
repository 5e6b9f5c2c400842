/**
 * Streams one model call into turn events: reasoning into a "💭 Thinking…" step that collapses
 * (retitled "💡 Thought process") on the first answer chunk, answer text as text deltas.
 * Shared by chat mode and the answer phase of agent and plan modes.
 */
import { t } from '../i18n/translate.js';
import { type ChatMessage, type LlmClient, type Usage, ZERO_USAGE } from '../llm/types.js';
import type { TurnContext } from './types.js';

export interface StreamedAnswer {
  text: string;
  reasoning: string;
  usage: Usage;
  model: string;
  latencyMs: number;
}

let thinkingCounter = 0;

export async function streamAnswer(
  ctx: Pick<TurnContext, 'emit' | 'locale' | 'signal'>,
  client: LlmClient,
  messages: ChatMessage[],
): Promise<StreamedAnswer> {
  const thinkingId = `thinking-${++thinkingCounter}`;
  let thinkingOpen = false;
  const closeThinking = (status: 'done' | 'failed') => {
    if (!thinkingOpen) return;
    thinkingOpen = false;
    ctx.emit({ type: 'step-finish', id: thinkingId, status, title: t(ctx.locale, 'step.thought') });
  };
  const result: StreamedAnswer = {
    text: '',
    reasoning: '',
    usage: ZERO_USAGE,
    model: client.config.model,
    latencyMs: 0,
  };
  try {
    for await (const part of client.stream({ messages, signal: ctx.signal })) {
      switch (part.type) {
        case 'reasoning':
          if (!thinkingOpen && result.text === '') {
            thinkingOpen = true;
            ctx.emit({
              type: 'step-start',
              id: thinkingId,
              kind: 'thinking',
              title: t(ctx.locale, 'step.thinking'),
            });
          }
          result.reasoning += part.text;
          if (thinkingOpen) ctx.emit({ type: 'step-update', id: thinkingId, append: part.text });
          break;
        case 'text':
          closeThinking('done');
          result.text += part.text;
          ctx.emit({ type: 'text-delta', text: part.text });
          break;
        case 'usage':
          result.usage = part.usage;
          break;
        case 'finish':
          result.model = part.model || result.model;
          result.latencyMs = part.latencyMs;
          break;
        case 'tool-call':
          // The answer call sends no tools; a stray call is ignored rather than failing the turn.
          break;
      }
    }
  } catch (err) {
    // An error mid-thinking still closes the step; the caller shows the friendly message.
    closeThinking('failed');
    throw err;
  }
  closeThinking('done');
  return result;
}
