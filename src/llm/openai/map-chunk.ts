/**
 * One OpenAI-style stream (OpenAI, DeepSeek, Gemini, compatible servers) → StreamParts. Text and
 * reasoning stream as they come; tool calls, usage and finish come out at the end, once whole.
 * A chunk of unexpected shape is logged and its text, if any, treated as answer — never a crash.
 */
import type { Logger } from 'pino';
import { mapFinishReason } from '../finish-reason.js';
import { ToolCallAssembler, type ToolCallDelta } from '../tool-call-assembler.js';
import type { StreamPart, Usage } from '../types.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Text from content that is a string or (some servers) a list of `{type:'text', text}` parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((p) => (isObject(p) && typeof p['text'] === 'string' ? p['text'] : '')).join('');
  }
  return '';
}

/**
 * OpenAI-style usage → ours. Providers disagree on whether reasoning is inside `completion_tokens`
 * (OpenAI, DeepSeek, Z.ai) or outside it (xAI, Gemini); `total_tokens` tells them apart, since it
 * always counts everything: whatever it holds beyond prompt + completion is reasoning.
 */
export function mapOpenAIUsage(raw: Json): Usage {
  const details = isObject(raw['completion_tokens_details']) ? raw['completion_tokens_details'] : {};
  const promptDetails = isObject(raw['prompt_tokens_details']) ? raw['prompt_tokens_details'] : {};
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
  const input = num(raw['prompt_tokens']);
  const completion = num(raw['completion_tokens']);
  const reported = num(details['reasoning_tokens']);
  const hasTotal = typeof raw['total_tokens'] === 'number';
  // Without a total, reasoning larger than the whole completion can only have been counted apart.
  const outside = hasTotal
    ? Math.max(0, num(raw['total_tokens']) - input - completion)
    : reported > completion
      ? reported
      : 0;
  const usage: Usage = {
    inputTokens: input,
    outputTokens: completion + outside,
    reasoningTokens: outside > 0 ? outside : Math.min(reported, completion),
  };
  // OpenAI reports cache hits in prompt_tokens_details, DeepSeek as prompt_cache_hit_tokens.
  const cached = Math.min(num(promptDetails['cached_tokens']) || num(raw['prompt_cache_hit_tokens']), input);
  if (cached > 0) usage.cachedInputTokens = cached;
  return usage;
}

export class OpenAIChunkMapper {
  private readonly toolCalls = new ToolCallAssembler();
  private usage: Usage | undefined;
  /** The latest usage the provider reported, even when the stream then fails. */
  get usageSoFar(): Usage | undefined {
    return this.usage;
  }
  private finishReason: unknown;
  /** Gemini's message-level `extra_content` (a thought signature), echoed back on the message. */
  private extraContent: unknown;
  private model: string;
  private warned = false;

  constructor(
    fallbackModel: string,
    private readonly logger: Logger,
  ) {
    this.model = fallbackModel;
  }

  /** Keeps the usage of a chunk that carries an error (OpenRouter sends the counts there). */
  takeUsage(chunk: unknown): void {
    if (isObject(chunk) && isObject(chunk['usage'])) this.usage = mapOpenAIUsage(chunk['usage']);
  }

  push(chunk: unknown): StreamPart[] {
    const parts: StreamPart[] = [];
    if (!isObject(chunk)) return this.unexpected(chunk);
    if (typeof chunk['model'] === 'string' && chunk['model']) this.model = chunk['model'];
    if (isObject(chunk['usage'])) this.usage = mapOpenAIUsage(chunk['usage']);
    const choices = chunk['choices'];
    if (!Array.isArray(choices)) {
      // A usage-only chunk without `choices` is fine; anything else is unexpected.
      return isObject(chunk['usage']) ? parts : this.unexpected(chunk);
    }
    const choice =
      choices.find((c) => isObject(c) && (c['index'] === 0 || c['index'] === undefined)) ?? choices[0];
    if (!isObject(choice)) return parts;
    const delta = isObject(choice['delta'])
      ? choice['delta']
      : isObject(choice['message'])
        ? choice['message']
        : undefined;
    if (!delta) {
      if (typeof choice['text'] === 'string' && choice['text'])
        parts.push({ type: 'text', text: choice['text'] });
      else if (choice['finish_reason'] == null) return this.unexpected(chunk);
    } else {
      // DeepSeek says reasoning_content; vLLM/OpenRouter/Ollama say reasoning.
      const reasoning = textOf(delta['reasoning_content'] ?? delta['reasoning']);
      if (reasoning) parts.push({ type: 'reasoning', text: reasoning });
      const text = textOf(delta['content']);
      if (text) parts.push({ type: 'text', text });
      if (isObject(delta['extra_content'])) this.extraContent = delta['extra_content'];
      const calls = delta['tool_calls'];
      if (Array.isArray(calls)) {
        calls.forEach((call, position) => {
          if (isObject(call)) this.toolCalls.push(call as ToolCallDelta, position);
        });
      }
    }
    if (choice['finish_reason'] != null) this.finishReason = choice['finish_reason'];
    return parts;
  }

  /** Tool calls, usage and finish, once the stream has ended. */
  end(): StreamPart[] {
    const calls = this.toolCalls.finish();
    const parts: StreamPart[] = calls.map((toolCall) => ({ type: 'tool-call', toolCall }));
    if (this.extraContent !== undefined)
      parts.push({ type: 'message-metadata', metadata: { extra_content: this.extraContent } });
    if (this.usage) parts.push({ type: 'usage', usage: this.usage });
    parts.push({
      type: 'finish',
      reason: mapFinishReason(this.finishReason, calls.length > 0),
      model: this.model,
      latencyMs: 0,
    });
    return parts;
  }

  private unexpected(chunk: unknown): StreamPart[] {
    if (!this.warned) {
      this.warned = true;
      const preview = JSON.stringify(chunk)?.slice(0, 200);
      this.logger.warn(
        { chunk: preview },
        'LLM stream chunk of unexpected shape; treating its text as answer',
      );
    }
    if (typeof chunk === 'string') return chunk ? [{ type: 'text', text: chunk }] : [];
    if (!isObject(chunk)) return [];
    const text = textOf(
      chunk['text'] ??
        chunk['content'] ??
        chunk['response'] ??
        (isObject(chunk['message']) ? chunk['message']['content'] : undefined),
    );
    return text ? [{ type: 'text', text }] : [];
  }
}
