/**
 * OpenAI, DeepSeek, Gemini (its OpenAI-compatible endpoint) and any OpenAI-compatible server: one
 * streamed POST per attempt (post-event-stream.ts), failures as the `openai` SDK's error classes;
 * retries are ours (retry.ts).
 */
import { APIError } from 'openai/core/error';
import type { Logger } from 'pino';
import { LlmError } from '../../errors.js';
import { resolveDeepSeekVariant } from '../deepseek-variants.js';
import { isReasoningContentError, repairDeepSeekHistory } from '../deepseek-repair.js';
import type { FailureContext } from '../http-failure.js';
import { mapOpenAIError } from '../map-openai-error.js';
import { strictMessages } from '../strict-json.js';
import { withUsage } from '../usage.js';
import { withSchemaInstruction } from '../json-instruction.js';
import type { AttemptIo, ProviderDriver, RecoveryPlan } from '../streaming-client.js';
import type { LlmRequest, ModelConfig, StreamPart } from '../types.js';
import { toOpenAIMessages } from './convert-messages.js';
import { OpenAIChunkMapper } from './map-chunk.js';
import { completionsUrl, postEventStream } from './post-event-stream.js';

export interface OpenAIDriverOptions {
  apiKey?: string;
  baseUrl?: string;
  /** Variable to name when the key is missing or rejected. */
  keyVariable: string;
  /** The base URL as shown in connection errors. */
  endpoint?: string;
  logger: Logger;
}

/**
 * Providers whose OpenAI-style endpoint takes `response_format: json_schema` (llama.cpp, vLLM and
 * OpenRouter among the compatible ones; a server that refuses it gets one resend in JSON mode).
 * DeepSeek has JSON mode only.
 */
const SCHEMA_PROVIDERS: ReadonlySet<string> = new Set(['openai', 'gemini', 'openai-compatible']);

/** Servers such as Ollama take any key, but the SDK insists on one. */
const PLACEHOLDER_KEY = 'not-needed';

export function createOpenAIDriver(config: ModelConfig, options: OpenAIDriverOptions): ProviderDriver {
  const { logger } = options;
  const isDeepSeek = config.provider === 'deepseek';
  const variant = isDeepSeek ? resolveDeepSeekVariant(config.model) : undefined;
  const apiModel = variant?.apiModel ?? config.model;
  const thinking = variant?.thinking ?? false;
  const apiKey = options.apiKey ?? (config.provider === 'openai-compatible' ? PLACEHOLDER_KEY : undefined);
  const ctx: FailureContext = {
    provider: config.provider,
    model: config.model,
    keyVariable: options.keyVariable,
    secrets: [options.apiKey],
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
  };
  const url = completionsUrl(options.baseUrl);

  function buildBody(
    request: LlmRequest,
    reasoningScope: 'tool-calls' | 'all' | undefined,
  ): Record<string, unknown> {
    let messages = request.messages;
    if (isDeepSeek && (thinking || reasoningScope === 'all')) {
      const repair = repairDeepSeekHistory(messages, reasoningScope ?? 'tool-calls');
      if (repair.fixed.length > 0)
        logger.info({ llm: `deepseek/${config.model}`, fixed: repair.fixed }, 'repaired DeepSeek history');
      messages = repair.messages;
    }
    const body: Record<string, unknown> = {
      model: apiModel,
      messages: toOpenAIMessages(strictMessages(messages), {
        reasoningContent: reasoningScope ?? (isDeepSeek && thinking ? 'tool-calls' : 'none'),
      }),
      stream: true,
      stream_options: { include_usage: true },
      temperature: config.temperature,
    };
    // Sent only when set: a local server's own generation limit is the operator's choice. OpenAI's
    // newer models only take max_completion_tokens; other servers know max_tokens.
    if (config.maxTokens !== undefined)
      body[config.provider === 'openai' ? 'max_completion_tokens' : 'max_tokens'] = config.maxTokens;
    if (config.topP !== undefined) body['top_p'] = config.topP;
    if (isDeepSeek) body['thinking'] = { type: thinking ? 'enabled' : 'disabled' };
    // Gemini's OpenAI endpoint takes its thinking budget in extra_body (0 switches thinking off).
    if (config.provider === 'gemini' && config.thinking !== undefined)
      body['extra_body'] = { google: { thinking_config: { thinking_budget: config.thinking } } };
    if (request.tools && request.tools.length > 0) {
      body['tools'] = request.tools.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      }));
      if (request.toolChoice) body['tool_choice'] = request.toolChoice;
    }
    if (request.jsonSchema && SCHEMA_PROVIDERS.has(config.provider) && !jsonModeOnly.has(request)) {
      body['response_format'] = {
        type: 'json_schema',
        json_schema: { name: request.jsonSchema.name, schema: request.jsonSchema.schema, strict: false },
      };
    } else if (request.json || request.jsonSchema) {
      body['response_format'] = { type: 'json_object' };
    }
    return body;
  }

  /** Marks a request for the repaired resend (all assistant messages carry reasoning_content). */
  const repairedRequests = new WeakSet<LlmRequest>();
  /** Marks a request resent with JSON mode after the server refused `json_schema`. */
  const jsonModeOnly = new WeakSet<LlmRequest>();

  return {
    apiModel,
    async *attempt(request: LlmRequest, io: AttemptIo): AsyncIterable<StreamPart[]> {
      if (!apiKey) {
        throw new LlmError(
          'auth',
          `${config.provider}/${config.model}: no API key configured (set ${options.keyVariable})`,
          {
            provider: config.provider,
            model: config.model,
          },
        );
      }
      const body = buildBody(request, repairedRequests.has(request) ? 'all' : undefined);
      const mapper = new OpenAIChunkMapper(apiModel, logger);
      try {
        // Our own streaming POST (node:http + eventsource-parser: half the SDK's CPU per stream). An
        // error chunk also carries the usage so far (OpenRouter), which is kept.
        const response = await postEventStream(url, apiKey, JSON.stringify(body), io.signal);
        const events = response.events(io.touch);
        for await (const batch of events) {
          // The parts of one network chunk go on together (usually one token's).
          let parts: StreamPart[] = [];
          let failure: { error: unknown } | undefined;
          let finished = false;
          for (const data of batch) {
            if (data.startsWith('[DONE]')) {
              finished = true;
              break;
            }
            try {
              const chunk: unknown = JSON.parse(data);
              const error = errorOf(chunk);
              if (error !== undefined) {
                mapper.takeUsage(chunk);
                throw new APIError(undefined, error as object, undefined, response.headers);
              }
              const more = mapper.push(chunk);
              parts = parts.length === 0 ? more : joinParts(parts, more);
            } catch (err) {
              failure = { error: err };
              break;
            }
          }
          // What came before a failure in the same chunk is still handed on, as it was read.
          if (parts.length > 0) {
            yield parts;
            // The first part is out (the answer's, or its reasoning's: a thinking model's answer then
            // waits up to one window after the thought): later tokens wait for the batch window.
            events.gather();
          }
          if (failure) throw failure.error;
          if (finished) break;
        }
      } catch (err) {
        throw withUsage(mapOpenAIError(err, ctx), mapper.usageSoFar);
      }
      const last = mapper.end();
      if (last.length > 0) yield last;
    },
    mapError: (err) => mapOpenAIError(err, ctx),
    recover(error: LlmError, request: LlmRequest): RecoveryPlan | undefined {
      if (
        request.jsonSchema &&
        !jsonModeOnly.has(request) &&
        error.code === 'bad_request' &&
        /response_format|json_schema/i.test(error.message)
      ) {
        // An OpenAI-compatible server without structured output: JSON mode, the schema in the prompt.
        logger.info(
          { llm: `${config.provider}/${config.model}` },
          'json_schema refused; resending with JSON mode',
        );
        const plain: LlmRequest = { ...request, messages: withSchemaInstruction(request) };
        jsonModeOnly.add(plain);
        return { request: plain, failed: (again) => again };
      }
      if (!isDeepSeek || error.code !== 'bad_request' || !isReasoningContentError(error.message))
        return undefined;
      logger.warn(
        { llm: `deepseek/${config.model}` },
        'DeepSeek rejected reasoning_content; resending once with every assistant message repaired',
      );
      const repaired: LlmRequest = { ...request };
      repairedRequests.add(repaired);
      return {
        request: repaired,
        failed: (again) =>
          again.code === 'bad_request' && isReasoningContentError(again.message)
            ? new LlmError(
                'reasoning_content',
                `${again.message} (after one repaired resend)`,
                again.details,
                { cause: again },
              )
            : again,
      };
    },
  };
}

/** The `error` member of a stream chunk (`data: {"error": …}`), if it has one. */
function errorOf(chunk: unknown): unknown {
  if (!chunk || typeof chunk !== 'object') return undefined;
  const error = (chunk as Record<string, unknown>)['error'];
  return error === undefined || error === null ? undefined : error;
}

/**
 * `parts` (the batch's so far, a fresh array) with `more` appended, text that follows text joined
 * into one part (reasoning likewise): a batch of tokens goes downstream as one part, one async
 * step through the client, its watchers and the renderer instead of one per token.
 */
function joinParts(parts: StreamPart[], more: StreamPart[]): StreamPart[] {
  for (const part of more) {
    const last = parts[parts.length - 1];
    if (last?.type === 'text' && part.type === 'text')
      parts[parts.length - 1] = { type: 'text', text: last.text + part.text };
    else if (last?.type === 'reasoning' && part.type === 'reasoning')
      parts[parts.length - 1] = { type: 'reasoning', text: last.text + part.text };
    else parts.push(part);
  }
  return parts;
}
