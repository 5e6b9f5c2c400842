/**
 * The one model interface the rest of Scout sees. Every provider (OpenAI, DeepSeek, Gemini and any
 * OpenAI-compatible server through `openai`; Anthropic through `@anthropic-ai/sdk`) implements
 * `LlmClient`; nothing above this layer knows which provider answered.
 */

export const PROVIDERS = ['openai', 'deepseek', 'anthropic', 'gemini', 'openai-compatible'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** A validated model choice. Build it with `parseModelSpec`/`validateModelConfig`, never by hand. */
export interface ModelConfig {
  provider: ProviderName;
  /** The id sent to the provider (DeepSeek aliases are resolved by the provider layer, not here). */
  model: string;
  temperature: number;
  /** Set by the user or config; unset → not sent (Anthropic, which requires it, gets a default). */
  maxTokens?: number;
  topP?: number;
  /** Reasoning budget in tokens, switched on per model (Anthropic extended thinking, Gemini). */
  thinking?: number;
  /** Whether the model reads images; unset = the known default (src/context/vision.ts). */
  vision?: boolean;
}

export interface ToolCall {
  /** Provider id, or one we generated where the provider sent none (Gemini sends ""). */
  id: string;
  name: string;
  /** Raw JSON text of the arguments as the model produced them ("" is normalised to "{}"). */
  arguments: string;
  /** Opaque data that must be echoed back with this call (Gemini `extra_content`). */
  providerMetadata?: Record<string, unknown>;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | {
      role: 'user';
      content: string;
      /** Images shown with the text (vision models only; providers send them as image parts). */
      images?: ImagePart[];
    }
  | {
      role: 'assistant';
      content: string;
      /** DeepSeek `reasoning_content` / Anthropic thinking text; must be sent back with tool calls. */
      reasoning?: string;
      /** Anthropic thinking signature, echoed back with the thinking block. */
      reasoningSignature?: string;
      /** Anthropic thinking and redacted_thinking blocks, in order, echoed back with tool use. */
      reasoningBlocks?: ReasoningBlock[];
      /** Message-level data to echo back as sent (Gemini `extra_content` with a thought signature). */
      providerMetadata?: Record<string, unknown>;
      toolCalls?: ToolCall[];
    }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

/** An image for a vision model: base64 bytes of a type every vision provider accepts. */
export interface ImagePart {
  mimeType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  data: string;
  /** File name, for logs and the text placeholder kept in history. */
  name: string;
}

/** A function the model may call; `parameters` is a JSON Schema object. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/**
 * Token counts of one call, normalised across providers: every bucket is a part of the total above
 * it, whatever the provider's own convention (xAI and Gemini count reasoning outside
 * completion_tokens, Anthropic counts cache reads outside input_tokens).
 */
export interface Usage {
  /** Every input token, cached ones included. */
  inputTokens: number;
  /** Every output token, reasoning included. */
  outputTokens: number;
  /** Part of outputTokens spent on reasoning, where the provider reports it. */
  reasoningTokens: number;
  /** Part of inputTokens read from the provider's prompt cache (billed cheaper). */
  cachedInputTokens?: number;
  /** Part of inputTokens written to the prompt cache (Anthropic bills these dearer). */
  cacheWriteTokens?: number;
}

/** A reasoning block the provider needs back verbatim in the next request (Anthropic). */
export type ReasoningBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'error' | 'other';

export type StreamPart =
  /** `signature` (Anthropic) arrives once, at the end of a thinking block, with empty text. */
  | { type: 'reasoning'; text: string; signature?: string }
  | { type: 'text'; text: string }
  | { type: 'tool-call'; toolCall: ToolCall }
  /** A whole reasoning block, at its end, to be echoed back with tool use (Anthropic). */
  | { type: 'reasoning-block'; block: ReasoningBlock }
  /** Message-level data to echo back (Gemini `extra_content`); merged over earlier ones. */
  | { type: 'message-metadata'; metadata: Record<string, unknown> }
  | { type: 'usage'; usage: Usage }
  /** Always the last part: model id as the provider reported it, and wall time of the call. */
  | { type: 'finish'; reason: FinishReason; model: string; latencyMs: number };

export interface LlmRequest {
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  toolChoice?: 'auto' | 'none' | 'required';
  /** Aborts the HTTP request (Stop button, agent time limit). */
  signal?: AbortSignal;
  /** Ask for a JSON object (planner). Providers without the option get it through the prompt. */
  json?: boolean;
  /**
   * Ask for JSON matching this schema: sent as `response_format: json_schema` where the provider
   * supports it (a grammar-constrained server then cannot answer `{}`), else as JSON mode with the
   * schema in the prompt. Implies `json`.
   */
  jsonSchema?: { name: string; schema: Record<string, unknown> };
  /**
   * The last message is sent this once and no later request repeats it (the answer phase's question
   * with its observations): a prompt cache that charges for writes (Anthropic) keeps what comes before.
   */
  lastMessageOnce?: boolean;
}

export interface LlmResponse {
  text: string;
  reasoning: string;
  /** Anthropic thinking signature; store it as `reasoningSignature` on the assistant message. */
  reasoningSignature?: string;
  /** Store as `reasoningBlocks` on the assistant message that carries the tool calls. */
  reasoningBlocks?: ReasoningBlock[];
  /** Store as `providerMetadata` on that assistant message. */
  providerMetadata?: Record<string, unknown>;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage: Usage;
  model: string;
  latencyMs: number;
}

export interface LlmClient {
  readonly config: ModelConfig;
  /** Human label, e.g. "deepseek/deepseek-reasoner". */
  readonly label: string;
  /**
   * Streams one completion. Retries (429/5xx/network) happen inside, but never after a text or
   * reasoning part has been yielded. Throws `LlmError`.
   */
  stream(request: LlmRequest): AsyncIterable<StreamPart>;
  /** Non-streaming call; same retry policy. Throws `LlmError` (code `empty_response` when nothing came). */
  complete(request: LlmRequest): Promise<LlmResponse>;
}

export const ZERO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0, reasoningTokens: 0 });
