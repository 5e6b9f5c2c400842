/** Anthropic through `@anthropic-ai/sdk`, its retries off (ours are in retry.ts). */
import Anthropic from '@anthropic-ai/sdk';
import type { Logger } from 'pino';
import { LlmError } from '../../errors.js';
import type { FailureContext } from '../http-failure.js';
import { mapAnthropicError } from '../map-anthropic-error.js';
import { withRetryHintFetch } from '../retry-after.js';
import { strictMessages } from '../strict-json.js';
import { withUsage } from '../usage.js';
import { sentMaxTokens } from '../model-config.js';
import { jsonInstruction } from '../json-instruction.js';
import type { AttemptIo, ProviderDriver } from '../streaming-client.js';
import type { LlmRequest, ModelConfig, StreamPart } from '../types.js';
import { markCacheBreakpoints } from './cache-breakpoints.js';
import { toAnthropicPrompt } from './convert-messages.js';
import { AnthropicEventMapper } from './map-event.js';

export interface AnthropicDriverOptions {
  apiKey?: string;
  baseUrl?: string;
  keyVariable: string;
  /** The base URL as shown in connection errors. */
  endpoint?: string;
  sdkTimeoutMs: number;
  logger: Logger;
  fetch?: typeof fetch;
}

const TOOL_CHOICE: Record<NonNullable<LlmRequest['toolChoice']>, Record<string, string>> = {
  auto: { type: 'auto' },
  required: { type: 'any' },
  none: { type: 'none' },
};

export function createAnthropicDriver(config: ModelConfig, options: AnthropicDriverOptions): ProviderDriver {
  const ctx: FailureContext = {
    provider: config.provider,
    model: config.model,
    keyVariable: options.keyVariable,
    secrets: [options.apiKey],
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
  };
  const client = options.apiKey
    ? new Anthropic({
        apiKey: options.apiKey,
        ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
        maxRetries: 0,
        timeout: options.sdkTimeoutMs,
        fetch: withRetryHintFetch(options.fetch ?? globalThis.fetch),
      })
    : undefined;

  const maxTokens = sentMaxTokens(config);

  function buildBody(request: LlmRequest): Record<string, unknown> {
    const prompt = toAnthropicPrompt(strictMessages(request.messages));
    // Anthropic has no JSON mode: the request for JSON (and its schema) goes into the system prompt.
    const wantsJson = request.json || request.jsonSchema;
    const system = [prompt.system, wantsJson ? jsonInstruction(request) : undefined]
      .filter(Boolean)
      .join('\n\n');
    const body: Record<string, unknown> = {
      model: config.model,
      max_tokens: maxTokens,
      messages: prompt.messages,
      stream: true,
    };
    if (config.thinking !== undefined) {
      // Extended thinking: no temperature or top_p, and no forced tool use (the API refuses both).
      body['thinking'] = { type: 'enabled', budget_tokens: config.thinking };
    } else if (config.topP !== undefined) {
      // Recent Claude models reject temperature and top_p together: top_p, when set, is the choice.
      body['top_p'] = config.topP;
    } else body['temperature'] = config.temperature;
    // A block rather than a string: the block can carry the system prompt's cache breakpoint.
    const systemBlocks = system ? [{ type: 'text' as const, text: system }] : undefined;
    if (systemBlocks) body['system'] = systemBlocks;
    const tools = request.tools?.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.parameters,
    }));
    if (tools && tools.length > 0) {
      body['tools'] = tools;
      const choice =
        config.thinking !== undefined && request.toolChoice === 'required' ? 'auto' : request.toolChoice;
      if (choice) body['tool_choice'] = TOOL_CHOICE[choice];
    }
    markCacheBreakpoints(
      {
        ...(tools && tools.length > 0 ? { tools } : {}),
        ...(systemBlocks ? { system: systemBlocks } : {}),
        messages: prompt.messages,
      },
      request.lastMessageOnce ? { lastMessageOnce: true } : {},
    );
    return body;
  }

  return {
    apiModel: config.model,
    async *attempt(request: LlmRequest, io: AttemptIo): AsyncIterable<StreamPart[]> {
      if (!client) {
        throw new LlmError(
          'auth',
          `anthropic/${config.model}: no API key configured (set ${options.keyVariable})`,
          {
            provider: config.provider,
            model: config.model,
          },
        );
      }
      const params = buildBody(request) as unknown as Anthropic.MessageCreateParamsStreaming;
      const mapper = new AnthropicEventMapper(config.model, options.logger);
      try {
        const stream = await client.messages.create(params, { signal: io.signal });
        for await (const event of stream) {
          io.touch();
          const parts = mapper.push(event);
          if (parts.length > 0) yield parts;
        }
      } catch (err) {
        // message_start already said how many input tokens were read: keep them for the footer.
        throw withUsage(mapAnthropicError(err, ctx), mapper.usageSoFar);
      }
      const last = mapper.end();
      if (last.length > 0) yield last;
      // The body has ended, but fetch (undici) puts the connection back in its pool a few ticks
      // later: without this one turn of the event loop, an agent's next call, which starts at once,
      // would open a second connection. Measured in test/llm/keep-alive.test.ts.
      await new Promise((resolve) => setImmediate(resolve));
    },
    mapError: (err) => mapAnthropicError(err, ctx),
  };
}
