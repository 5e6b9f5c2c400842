/**
 * A fake OpenAI-compatible chat.completions server on loopback for tests that run the real
 * `openai` SDK (and so every provider Scout drives through it: OpenAI, DeepSeek, Gemini, custom).
 *
 * ```ts
 * const fake = await startFakeOpenAI();
 * fake.enqueue(textReply('Hello', { reasoning: 'Let me think' }));
 * fake.enqueue({ status: 429, body: openAIErrorBody('slow down'), headers: { 'retry-after': '1' } });
 * fake.enqueue(toolCallReply([{ name: 'web_search', arguments: { query: 'news' } }]));
 * fake.fallback = (body) => textReply(`echo ${body.messages.length}`); // when the queue is empty
 * // point a client at fake.baseUrl (…/v1); then inspect fake.requests[0].body / .headers
 * await fake.close();
 * ```
 *
 * Serves `POST /v1/chat/completions` and `POST /chat/completions` (for base URLs without /v1).
 * Scripts: see `scripted-sse-server.ts` (chunk lists, errors, JSON, hangs, delays, drops).
 */
import { type ScriptedServer, type StreamScript, startScriptedServer } from './scripted-sse-server.js';

export type { Fallback, RecordedRequest, Script, StreamScript } from './scripted-sse-server.js';

export interface FakeOpenAI extends ScriptedServer {
  /** `http://127.0.0.1:<port>/v1`: pass as OPENAI_BASE_URL / DEEPSEEK_BASE_URL / GEMINI_BASE_URL / baseURL. */
  readonly baseUrl: string;
}

export interface ReplyUsage {
  inputTokens: number;
  outputTokens: number;
  reasoningTokens?: number;
}

export interface ReplyOptions {
  /** Token usage for the final `choices: []` chunk; `false` sends none. Default 10 in / 5 out. */
  usage?: ReplyUsage | false;
  /** Streamed as DeepSeek `reasoning_content` before the answer. */
  reasoning?: string;
  model?: string;
  finishReason?: string;
  delayMs?: number;
  chunkDelayMs?: number;
  /** How many chunks the text streams in (default 3). */
  pieces?: number;
}

const DEFAULT_MODEL = 'fake-model';
const DEFAULT_USAGE: ReplyUsage = { inputTokens: 10, outputTokens: 5 };

export function openAIErrorBody(
  message: string,
  type = 'invalid_request_error',
  code: string | null = null,
): unknown {
  return { error: { message, type, param: null, code } };
}

export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const server = await startScriptedServer({
    name: 'fake-openai',
    paths: ['/v1/chat/completions', '/chat/completions'],
    formatEvent: (chunk) => `data: ${JSON.stringify(chunk)}\n\n`,
    terminator: 'data: [DONE]\n\n',
    emptyQueueBody: (message) => openAIErrorBody(message),
  });
  // The server itself (not a copy): `fallback` set on the fake is the one the server reads.
  // `origin` (`http://127.0.0.1:<port>`) serves `/chat/completions` too.
  return Object.assign(server, { baseUrl: `${server.origin}/v1` });
}

/** Splits text into a few pieces so the client really assembles a stream. */
export function splitText(text: string, pieces = 3): string[] {
  if (text.length <= pieces) return text ? [...text] : [];
  const size = Math.ceil(text.length / pieces);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function chunk(model: string, delta: Record<string, unknown>, finishReason: string | null = null): unknown {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

function usageChunk(model: string, usage: ReplyUsage): unknown {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [],
    usage: {
      prompt_tokens: usage.inputTokens,
      completion_tokens: usage.outputTokens,
      total_tokens: usage.inputTokens + usage.outputTokens,
      completion_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    },
  };
}

function finishScript(chunks: unknown[], options: ReplyOptions): StreamScript {
  const model = options.model ?? DEFAULT_MODEL;
  if (options.usage !== false) chunks.push(usageChunk(model, options.usage ?? DEFAULT_USAGE));
  const script: StreamScript = { chunks };
  if (options.delayMs !== undefined) script.delayMs = options.delayMs;
  if (options.chunkDelayMs !== undefined) script.chunkDelayMs = options.chunkDelayMs;
  return script;
}

/** A streamed text answer (optionally preceded by reasoning), then finish and usage. */
export function textReply(text: string, options: ReplyOptions = {}): StreamScript {
  const model = options.model ?? DEFAULT_MODEL;
  const chunks: unknown[] = [chunk(model, { role: 'assistant', content: '' })];
  for (const piece of splitText(options.reasoning ?? ''))
    chunks.push(chunk(model, { content: null, reasoning_content: piece }));
  for (const piece of splitText(text, options.pieces)) chunks.push(chunk(model, { content: piece }));
  chunks.push(chunk(model, {}, options.finishReason ?? 'stop'));
  return finishScript(chunks, options);
}

export interface FakeToolCall {
  name: string;
  /** JSON text, or an object that is stringified. */
  arguments: string | Record<string, unknown>;
  /** Defaults to call_<n>; pass "" to mimic Gemini. */
  id?: string;
  /** Sent as the call's `extra_content` (Gemini thought signatures). */
  extraContent?: unknown;
}

/** A streamed tool-call turn: optional reasoning/text, then each call's fragments merged by index. */
export function toolCallReply(
  calls: FakeToolCall[],
  options: ReplyOptions & { text?: string } = {},
): StreamScript {
  const model = options.model ?? DEFAULT_MODEL;
  const chunks: unknown[] = [chunk(model, { role: 'assistant', content: null })];
  for (const piece of splitText(options.reasoning ?? ''))
    chunks.push(chunk(model, { content: null, reasoning_content: piece }));
  for (const piece of splitText(options.text ?? '')) chunks.push(chunk(model, { content: piece }));
  calls.forEach((call, index) => {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    const head: Record<string, unknown> = {
      index,
      id: call.id ?? `call_${index + 1}`,
      type: 'function',
      function: { name: call.name, arguments: '' },
    };
    if (call.extraContent !== undefined) head['extra_content'] = call.extraContent;
    chunks.push(chunk(model, { tool_calls: [head] }));
    for (const piece of splitText(args, 2))
      chunks.push(chunk(model, { tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  chunks.push(chunk(model, {}, options.finishReason ?? 'tool_calls'));
  return finishScript(chunks, options);
}
