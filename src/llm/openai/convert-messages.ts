/**
 * ChatMessage[] → OpenAI chat.completions messages (also DeepSeek, Gemini and compatible servers).
 * DeepSeek in thinking mode needs `reasoning_content` on assistant tool-call messages; Gemini needs
 * each tool call's `extra_content` echoed back.
 */
import type { ChatMessage } from '../types.js';

export interface OpenAIConvertOptions {
  /**
   * Which assistant messages carry `reasoning_content`: none (default), those with tool calls
   * (DeepSeek thinking mode), or all (the repaired resend after a reasoning_content 400).
   */
  reasoningContent?: 'none' | 'tool-calls' | 'all';
}

export type OpenAIMessage = Record<string, unknown> & { role: string };

export function toOpenAIMessages(
  messages: ChatMessage[],
  options: OpenAIConvertOptions = {},
): OpenAIMessage[] {
  const mode = options.reasoningContent ?? 'none';
  return messages.map((message): OpenAIMessage => {
    switch (message.role) {
      case 'system':
        return { role: message.role, content: message.content };
      case 'user':
        if (!message.images?.length) return { role: 'user', content: message.content };
        // Content parts: OpenAI, Gemini's OpenAI-compatible API and vision servers take data URLs.
        return {
          role: 'user',
          content: [
            ...message.images.map((image) => ({
              type: 'image_url',
              image_url: { url: `data:${image.mimeType};base64,${image.data}` },
            })),
            { type: 'text', text: message.content },
          ],
        };
      case 'tool':
        return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
      default: {
        const hasCalls = (message.toolCalls?.length ?? 0) > 0;
        const out: OpenAIMessage = {
          role: 'assistant',
          content: hasCalls && !message.content ? null : message.content,
        };
        if (hasCalls) {
          out['tool_calls'] = message.toolCalls!.map((call) => {
            const wire: Record<string, unknown> = {
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: call.arguments || '{}' },
            };
            const extra = call.providerMetadata?.['extra_content'];
            if (extra !== undefined) wire['extra_content'] = extra;
            return wire;
          });
        }
        // Gemini's thought signature on the message goes back where it came from.
        const extra = message.providerMetadata?.['extra_content'];
        if (extra !== undefined) out['extra_content'] = extra;
        if (mode === 'all' || (mode === 'tool-calls' && hasCalls)) {
          out['reasoning_content'] = message.reasoning ?? '';
        }
        return out;
      }
    }
  });
}
