/**
 * Drains one `LlmClient.stream` call into a response, handing reasoning and text chunks to the
 * caller as they arrive, and records the call in the usage tracker even when it fails midway.
 */
import { type LlmClient, type LlmRequest, type ToolCall, type Usage, ZERO_USAGE } from '../../llm/types.js';
import type { ModelRole, UsageTracker } from './usage-tracker.js';

export interface StreamHandlers {
  onReasoning?(text: string): void;
  onText?(text: string): void;
}

export interface StreamResult {
  text: string;
  reasoning: string;
  /** Anthropic thinking signature, echoed back with the assistant message that carries tool calls. */
  reasoningSignature?: string;
  toolCalls: ToolCall[];
  finishReason: string;
  usage: Usage;
  model: string;
  ms: number;
}

/** Mutable so a caller can read what arrived before a failure (partial answer on timeout). */
export function emptyStreamResult(): StreamResult {
  return {
    text: '',
    reasoning: '',
    toolCalls: [],
    finishReason: 'other',
    usage: { ...ZERO_USAGE },
    model: '',
    ms: 0,
  };
}

export async function consumeStream(
  llm: LlmClient,
  role: ModelRole,
  request: LlmRequest,
  tracker: UsageTracker,
  handlers: StreamHandlers = {},
  result: StreamResult = emptyStreamResult(),
): Promise<StreamResult> {
  const started = Date.now();
  try {
    for await (const part of llm.stream(request)) {
      switch (part.type) {
        case 'reasoning':
          if (part.signature) result.reasoningSignature = part.signature;
          if (!part.text) break;
          result.reasoning += part.text;
          handlers.onReasoning?.(part.text);
          break;
        case 'text':
          result.text += part.text;
          handlers.onText?.(part.text);
          break;
        case 'tool-call':
          result.toolCalls.push(part.toolCall);
          break;
        case 'usage':
          // Providers may report usage more than once (Anthropic sends cumulative counts): the latest wins.
          result.usage = { ...part.usage };
          break;
        case 'finish':
          result.finishReason = part.reason;
          result.model = part.model;
          break;
      }
    }
    return result;
  } finally {
    result.ms = Date.now() - started;
    tracker.recordCall(llm, role, result.usage, result.ms);
  }
}
