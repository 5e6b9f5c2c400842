/**
 * ChatMessage[] → Anthropic Messages API: system prompts go to `system`, tool results become user
 * `tool_result` blocks, thinking blocks (with their signature) precede `tool_use` blocks, and
 * consecutive same-role turns are merged (the API wants user/assistant alternation).
 */
import type { ChatMessage } from '../types.js';

export type AnthropicBlock = Record<string, unknown> & { type: string };
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}

export interface AnthropicPrompt {
  system: string | undefined;
  messages: AnthropicMessage[];
}

function parseInput(args: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(args || '{}');
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

export function toAnthropicPrompt(messages: ChatMessage[]): AnthropicPrompt {
  const system: string[] = [];
  const out: AnthropicMessage[] = [];
  const append = (role: AnthropicMessage['role'], blocks: AnthropicBlock[]) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        system.push(message.content);
        break;
      case 'user':
        // Images first: Anthropic reads best with the image before the text about it.
        append('user', [
          ...(message.images ?? []).map((image) => ({
            type: 'image',
            source: { type: 'base64', media_type: image.mimeType, data: image.data },
          })),
          ...(message.content ? [{ type: 'text', text: message.content }] : []),
        ]);
        break;
      case 'tool':
        append('user', [{ type: 'tool_result', tool_use_id: message.toolCallId, content: message.content }]);
        break;
      case 'assistant': {
        const blocks: AnthropicBlock[] = [];
        // Thinking blocks go back first, each exactly as the API gave it (signature, redacted data).
        if (message.reasoningBlocks && message.reasoningBlocks.length > 0) {
          for (const block of message.reasoningBlocks) {
            blocks.push(
              block.type === 'thinking'
                ? { type: 'thinking', thinking: block.thinking, signature: block.signature }
                : { type: 'redacted_thinking', data: block.data },
            );
          }
        } else if (message.reasoning && message.reasoningSignature) {
          // A thinking block is only accepted back with the signature the API gave it.
          blocks.push({
            type: 'thinking',
            thinking: message.reasoning,
            signature: message.reasoningSignature,
          });
        }
        if (message.content) blocks.push({ type: 'text', text: message.content });
        for (const call of message.toolCalls ?? []) {
          blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: parseInput(call.arguments) });
        }
        append('assistant', blocks);
        break;
      }
    }
  }
  return { system: system.length > 0 ? system.join('\n\n') : undefined, messages: out };
}
