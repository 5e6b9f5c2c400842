/**
 * A fake Anthropic Messages API on loopback for tests that run the real `@anthropic-ai/sdk`.
 *
 * ```ts
 * const fake = await startFakeAnthropic();
 * fake.enqueue(anthropicTextReply('Hello', { thinking: 'hmm' }));
 * fake.enqueue({ status: 529, body: anthropicErrorBody('Overloaded', 'overloaded_error') });
 * // new Anthropic({ baseURL: fake.baseUrl, apiKey: 'x' }) or ANTHROPIC_BASE_URL=fake.baseUrl
 * await fake.close();
 * ```
 *
 * Serves `POST /v1/messages`, streaming SSE with an `event: <type>` line before each data line.
 * Scripts are the same as the OpenAI fake's (see `scripted-sse-server.ts`); chunk objects are the
 * stream events (`{ type: 'message_start', … }`).
 */
import { splitText } from './fake-openai-server.js';
import { type ScriptedServer, type StreamScript, startScriptedServer } from './scripted-sse-server.js';

export interface FakeAnthropic extends ScriptedServer {
  /** `http://127.0.0.1:<port>`: the SDK adds `/v1/messages`. */
  readonly baseUrl: string;
}

export interface FakeAnthropicUsage {
  /** Uncached input (Anthropic's `input_tokens`: what is neither read from nor written to the cache). */
  inputTokens: number;
  outputTokens: number;
  /** Given either, usage has the recorded shape of a cached request (see `usageFields`). */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

export interface AnthropicReplyOptions {
  /** `false` sends no usage. Default 10 in / 5 out. */
  usage?: FakeAnthropicUsage | false;
  /** Streamed as a thinking block (with a signature) before the answer. */
  thinking?: string;
  model?: string;
  stopReason?: string;
  delayMs?: number;
  chunkDelayMs?: number;
}

const DEFAULT_MODEL = 'claude-fake';

export function anthropicErrorBody(message: string, type = 'invalid_request_error'): unknown {
  return { type: 'error', error: { type, message } };
}

export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const server = await startScriptedServer({
    name: 'fake-anthropic',
    paths: ['/v1/messages'],
    formatEvent: (event) => {
      const type = (event as { type?: unknown }).type;
      return `event: ${typeof type === 'string' ? type : 'message'}\ndata: ${JSON.stringify(event)}\n\n`;
    },
    emptyQueueBody: (message) => anthropicErrorBody(message),
  });
  // The server itself (not a copy): `fallback` set on the fake is the one the server reads.
  return Object.assign(server, { baseUrl: server.origin });
}

/**
 * Input usage as the API reports it with prompt caching (recorded in `../shared/replays`,
 * anthropic-cache-usage): cache reads and writes apart from `input_tokens`, the writes split by TTL.
 */
function cacheFields(usage: FakeAnthropicUsage | undefined, start: boolean): Record<string, unknown> {
  if (!usage || (usage.cacheReadTokens === undefined && usage.cacheWriteTokens === undefined)) return {};
  const written = usage.cacheWriteTokens ?? 0;
  return {
    cache_creation_input_tokens: written,
    cache_read_input_tokens: usage.cacheReadTokens ?? 0,
    ...(start
      ? { cache_creation: { ephemeral_5m_input_tokens: written, ephemeral_1h_input_tokens: 0 } }
      : {}),
  };
}

/** With caching, message_delta repeats the final input counts, as the API does today. */
function deltaUsage(usage: FakeAnthropicUsage): Record<string, unknown> {
  const cache = cacheFields(usage, false);
  const input = Object.keys(cache).length > 0 ? { input_tokens: usage.inputTokens, ...cache } : {};
  return { ...input, output_tokens: usage.outputTokens };
}

function start(model: string, inputTokens: number, usage?: FakeAnthropicUsage): unknown {
  return {
    type: 'message_start',
    message: {
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: inputTokens, ...cacheFields(usage, true), output_tokens: 1 },
    },
  };
}

function textBlock(index: number, text: string): unknown[] {
  return [
    { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
    ...splitText(text).map((piece) => ({
      type: 'content_block_delta',
      index,
      delta: { type: 'text_delta', text: piece },
    })),
    { type: 'content_block_stop', index },
  ];
}

function thinkingBlock(index: number, thinking: string): unknown[] {
  return [
    { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } },
    ...splitText(thinking).map((piece) => ({
      type: 'content_block_delta',
      index,
      delta: { type: 'thinking_delta', thinking: piece },
    })),
    { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: 'sig-fake' } },
    { type: 'content_block_stop', index },
  ];
}

function finish(chunks: unknown[], stopReason: string, options: AnthropicReplyOptions): StreamScript {
  const usage = options.usage === false ? undefined : (options.usage ?? { inputTokens: 10, outputTokens: 5 });
  chunks.push({
    type: 'message_delta',
    delta: { stop_reason: options.stopReason ?? stopReason, stop_sequence: null },
    ...(usage ? { usage: deltaUsage(usage) } : {}),
  });
  chunks.push({ type: 'message_stop' });
  const script: StreamScript = { chunks };
  if (options.delayMs !== undefined) script.delayMs = options.delayMs;
  if (options.chunkDelayMs !== undefined) script.chunkDelayMs = options.chunkDelayMs;
  return script;
}

/** A streamed text answer, optionally after a thinking block. */
export function anthropicTextReply(text: string, options: AnthropicReplyOptions = {}): StreamScript {
  const inputTokens = options.usage === false ? 0 : (options.usage?.inputTokens ?? 10);
  const chunks: unknown[] = [
    start(options.model ?? DEFAULT_MODEL, inputTokens, options.usage === false ? undefined : options.usage),
  ];
  let index = 0;
  if (options.thinking) chunks.push(...thinkingBlock(index++, options.thinking));
  chunks.push(...textBlock(index, text));
  return finish(chunks, 'end_turn', options);
}

export interface FakeToolUse {
  name: string;
  input: Record<string, unknown>;
  id?: string;
}

/** A streamed tool_use turn: optional thinking and text, then each tool_use with its JSON in fragments. */
export function anthropicToolUseReply(
  calls: FakeToolUse[],
  options: AnthropicReplyOptions & { text?: string } = {},
): StreamScript {
  const inputTokens = options.usage === false ? 0 : (options.usage?.inputTokens ?? 10);
  const chunks: unknown[] = [
    start(options.model ?? DEFAULT_MODEL, inputTokens, options.usage === false ? undefined : options.usage),
  ];
  let index = 0;
  if (options.thinking) chunks.push(...thinkingBlock(index++, options.thinking));
  if (options.text) chunks.push(...textBlock(index++, options.text));
  calls.forEach((call, n) => {
    const blockIndex = index++;
    chunks.push({
      type: 'content_block_start',
      index: blockIndex,
      content_block: { type: 'tool_use', id: call.id ?? `toolu_${n + 1}`, name: call.name, input: {} },
    });
    for (const piece of splitText(JSON.stringify(call.input), 2)) {
      chunks.push({
        type: 'content_block_delta',
        index: blockIndex,
        delta: { type: 'input_json_delta', partial_json: piece },
      });
    }
    chunks.push({ type: 'content_block_stop', index: blockIndex });
  });
  return finish(chunks, 'tool_use', options);
}
