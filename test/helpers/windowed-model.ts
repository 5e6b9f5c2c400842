/**
 * A fake model with a context window: it refuses, as OpenAI does (`context_length_exceeded`), every
 * request whose messages, tools and max_tokens pass the window as gpt-tokenizer counts them.
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { type FakeOpenAI, openAIErrorBody, type RecordedRequest, type Script } from './fake-openai-server.js';

export interface SentMessage {
  role: string;
  content: string | null;
  tool_call_id?: string;
  tool_calls?: Array<{ function: { name: string; arguments: string } }>;
}

/** What a request takes of the window, as a provider counts it: messages, tools and max_tokens. */
export function requestTokens(body: {
  messages: SentMessage[];
  tools?: unknown[];
  max_tokens?: number;
  max_completion_tokens?: number;
}): number {
  let total = 3 + (body.tools ? countTokens(JSON.stringify(body.tools)) : 0);
  for (const m of body.messages) {
    total += 4 + countTokens(m.content ?? '');
    for (const call of m.tool_calls ?? [])
      total += countTokens(call.function.name) + countTokens(call.function.arguments);
  }
  return total + (body.max_completion_tokens ?? body.max_tokens ?? 0);
}

/**
 * Makes `llm` a model with a window of `window` tokens: what fits gets `reply(body)`, what does not
 * the provider's refusal. `sizes` holds every request's tokens, `refused` those refused.
 */
export function modelWithWindow(
  llm: FakeOpenAI,
  window: number,
  reply: (body: RecordedRequest['body']) => Script,
): { sizes: number[]; refused: number[] } {
  const sizes: number[] = [];
  const refused: number[] = [];
  llm.fallback = (body) => {
    const tokens = requestTokens(body);
    sizes.push(tokens);
    if (tokens > window) {
      refused.push(tokens);
      return {
        status: 400,
        body: openAIErrorBody(
          `This model's maximum context length is ${window} tokens. However, you requested ${tokens} tokens. Please reduce the length of the messages.`,
          'invalid_request_error',
          'context_length_exceeded',
        ),
      };
    }
    return reply(body);
  };
  return { sizes, refused };
}
