import type { FinishReason } from './types.js';

/** Maps every provider's stop reason onto ours. */
export function mapFinishReason(raw: unknown, hasToolCalls: boolean): FinishReason {
  // Gemini says "stop" even when it called tools; the agent loop needs "tool_calls".
  if (hasToolCalls && (raw === 'stop' || raw === 'tool_calls' || raw === 'tool_use' || raw == null)) {
    return 'tool_calls';
  }
  switch (raw) {
    case 'stop':
    case 'end_turn':
    case 'stop_sequence':
    case undefined:
    case null:
      return 'stop';
    case 'tool_calls':
    case 'function_call':
    case 'tool_use':
      return 'tool_calls';
    case 'length':
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'content_filter':
    case 'refusal':
    case 'safety':
      return 'content_filter';
    default:
      return 'other';
  }
}
