/**
 * Anthropic Messages stream events → StreamParts: text and thinking stream as they come; a
 * tool_use comes out whole at its content_block_stop ("" input → "{}"); usage is cumulative in
 * message_delta, so the latest wins. Unknown events are logged, their text treated as answer.
 */
import type { Logger } from 'pino';
import { mapFinishReason } from '../finish-reason.js';
import { generateToolCallId } from '../tool-call-assembler.js';
import type { StreamPart, Usage } from '../types.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

interface OpenBlock {
  type: string;
  /** Thinking text so far (echoed back whole with its signature). */
  thinking?: string;
  /** redacted_thinking's encrypted data. */
  data?: string;
  id?: string;
  name?: string;
  json: string;
  initialInput?: unknown;
  signature?: string;
}

export class AnthropicEventMapper {
  private readonly blocks = new Map<number, OpenBlock>();
  private model: string;
  private usage: Usage = { inputTokens: 0, outputTokens: 0, reasoningTokens: 0 };
  private sawUsage = false;
  private stopReason: unknown;
  private toolCalls = 0;
  private warned = false;

  constructor(
    fallbackModel: string,
    private readonly logger: Logger,
  ) {
    this.model = fallbackModel;
  }

  push(event: unknown): StreamPart[] {
    if (!isObject(event)) return this.unexpected(event);
    switch (event['type']) {
      case 'message_start': {
        const message = isObject(event['message']) ? event['message'] : {};
        if (typeof message['model'] === 'string') this.model = message['model'];
        if (isObject(message['usage'])) this.takeUsage(message['usage']);
        return [];
      }
      case 'content_block_start':
        return this.startBlock(
          num(event['index']) ?? 0,
          isObject(event['content_block']) ? event['content_block'] : {},
        );
      case 'content_block_delta':
        return this.delta(num(event['index']) ?? 0, isObject(event['delta']) ? event['delta'] : {});
      case 'content_block_stop':
        return this.stopBlock(num(event['index']) ?? 0);
      case 'message_delta': {
        const delta = isObject(event['delta']) ? event['delta'] : {};
        if (delta['stop_reason'] != null) this.stopReason = delta['stop_reason'];
        if (isObject(event['usage'])) this.takeUsage(event['usage']);
        return [];
      }
      case 'message_stop':
      case 'ping':
        return [];
      default:
        return this.unexpected(event);
    }
  }

  end(): StreamPart[] {
    const parts: StreamPart[] = [];
    if (this.sawUsage) parts.push({ type: 'usage', usage: { ...this.usage } });
    parts.push({
      type: 'finish',
      reason: mapFinishReason(this.stopReason, this.toolCalls > 0),
      model: this.model,
      latencyMs: 0,
    });
    return parts;
  }

  /** The latest usage the stream reported, even when it then fails. */
  get usageSoFar(): Usage | undefined {
    return this.sawUsage ? { ...this.usage } : undefined;
  }

  /**
   * Anthropic counts cache reads and writes apart from input_tokens, and message_delta repeats the
   * counts with the final input figure (it may differ from message_start's). With compaction, the
   * `iterations` list holds every billed pass and the top-level counts only the last.
   */
  private takeUsage(raw: Json): void {
    this.sawUsage = true;
    const passes = Array.isArray(raw['iterations']) ? raw['iterations'].filter(isObject) : [];
    const sum = (key: string): number | undefined => {
      if (passes.length > 0) return passes.reduce((n, pass) => n + (num(pass[key]) ?? 0), 0);
      return num(raw[key]);
    };
    const input = sum('input_tokens');
    const cacheRead = sum('cache_read_input_tokens');
    const cacheWrite = sum('cache_creation_input_tokens');
    if (input !== undefined) {
      this.usage.inputTokens = input + (cacheRead ?? 0) + (cacheWrite ?? 0);
      if (cacheRead) this.usage.cachedInputTokens = cacheRead;
      else delete this.usage.cachedInputTokens;
      if (cacheWrite) this.usage.cacheWriteTokens = cacheWrite;
      else delete this.usage.cacheWriteTokens;
    }
    const output = sum('output_tokens');
    if (output !== undefined) this.usage.outputTokens = output;
    // Reasoning is inside output_tokens; newer API versions say how much of it.
    const details = isObject(raw['output_tokens_details']) ? raw['output_tokens_details'] : {};
    const thinking = num(details['thinking_tokens']);
    if (thinking !== undefined) this.usage.reasoningTokens = Math.min(thinking, this.usage.outputTokens);
  }

  private startBlock(index: number, block: Json): StreamPart[] {
    const type = typeof block['type'] === 'string' ? block['type'] : 'unknown';
    const open: OpenBlock = { type, json: '' };
    if (type === 'thinking') open.thinking = typeof block['thinking'] === 'string' ? block['thinking'] : '';
    if (type === 'redacted_thinking') open.data = typeof block['data'] === 'string' ? block['data'] : '';
    if (type === 'tool_use') {
      open.id = typeof block['id'] === 'string' ? block['id'] : '';
      open.name = typeof block['name'] === 'string' ? block['name'] : '';
      open.initialInput = block['input'];
    }
    this.blocks.set(index, open);
    if (type === 'text' && typeof block['text'] === 'string' && block['text'])
      return [{ type: 'text', text: block['text'] }];
    if (type === 'thinking' && typeof block['thinking'] === 'string' && block['thinking']) {
      return [{ type: 'reasoning', text: block['thinking'] }];
    }
    return [];
  }

  private delta(index: number, delta: Json): StreamPart[] {
    const block = this.blocks.get(index);
    switch (delta['type']) {
      case 'text_delta':
        return typeof delta['text'] === 'string' && delta['text']
          ? [{ type: 'text', text: delta['text'] }]
          : [];
      case 'thinking_delta':
        if (typeof delta['thinking'] !== 'string' || !delta['thinking']) return [];
        if (block) block.thinking = (block.thinking ?? '') + delta['thinking'];
        return [{ type: 'reasoning', text: delta['thinking'] }];
      case 'signature_delta':
        if (block && typeof delta['signature'] === 'string')
          block.signature = (block.signature ?? '') + delta['signature'];
        return [];
      case 'input_json_delta':
        if (block && typeof delta['partial_json'] === 'string') block.json += delta['partial_json'];
        return [];
      default:
        return this.unexpected(delta);
    }
  }

  private stopBlock(index: number): StreamPart[] {
    const block = this.blocks.get(index);
    this.blocks.delete(index);
    if (!block) return [];
    if (block.type === 'thinking' && block.signature) {
      return [
        { type: 'reasoning', text: '', signature: block.signature },
        {
          type: 'reasoning-block',
          block: { type: 'thinking', thinking: block.thinking ?? '', signature: block.signature },
        },
      ];
    }
    // Encrypted reasoning: nothing to show, but the next request must carry it back unchanged.
    if (block.type === 'redacted_thinking' && block.data)
      return [{ type: 'reasoning-block', block: { type: 'redacted_thinking', data: block.data } }];
    if (block.type !== 'tool_use' || !block.name) return [];
    let args = block.json.trim();
    if (!args) {
      const initial = block.initialInput;
      args = isObject(initial) && Object.keys(initial).length > 0 ? JSON.stringify(initial) : '{}';
    }
    this.toolCalls++;
    return [
      {
        type: 'tool-call',
        toolCall: { id: block.id || generateToolCallId(), name: block.name, arguments: args },
      },
    ];
  }

  private unexpected(event: unknown): StreamPart[] {
    if (!this.warned) {
      this.warned = true;
      this.logger.warn(
        { event: JSON.stringify(event)?.slice(0, 200) },
        'Anthropic stream event of unexpected shape; treating its text as answer',
      );
    }
    if (isObject(event) && typeof event['text'] === 'string' && event['text'])
      return [{ type: 'text', text: event['text'] }];
    return [];
  }
}
