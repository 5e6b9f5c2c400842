/**
 * DeepSeek thinking mode: every assistant message with tool calls must be sent back with its
 * `reasoning_content`, or the API answers 400 ("Missing reasoning_content field …"). History from
 * the store may be plain objects that kept the wire name, or typed messages that lost it; this
 * checks and repairs before each call, and reports what it fixed for the log.
 */
import type { ChatMessage } from './types.js';

export interface RepairResult {
  messages: ChatMessage[];
  /** One line per repaired message, e.g. "message 3: reasoning_content was missing, sent \"\"". */
  fixed: string[];
}

/**
 * Gives every assistant message with tool calls (or every assistant message when `all`) a
 * `reasoning` string: its own, the wire-named `reasoning_content` of a plain object, or "".
 */
export function repairDeepSeekHistory(
  messages: ChatMessage[],
  scope: 'tool-calls' | 'all' = 'tool-calls',
): RepairResult {
  const fixed: string[] = [];
  const repaired = messages.map((message, index) => {
    if (message.role !== 'assistant') return message;
    if (scope === 'tool-calls' && !(message.toolCalls && message.toolCalls.length > 0)) return message;
    if (typeof message.reasoning === 'string') return message;
    const wire = (message as { reasoning_content?: unknown }).reasoning_content;
    if (typeof wire === 'string') {
      fixed.push(`message ${index}: reasoning_content taken from the stored wire field`);
      return { ...message, reasoning: wire };
    }
    fixed.push(`message ${index}: reasoning_content was missing, sent ""`);
    return { ...message, reasoning: '' };
  });
  return { messages: repaired, fixed };
}

/** Whether a 400 from DeepSeek is about reasoning_content in the history. */
export function isReasoningContentError(message: string): boolean {
  return /reasoning_content/i.test(message);
}
