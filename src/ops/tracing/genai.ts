/**
 * Attribute names of the OpenTelemetry GenAI semantic conventions (v1.37+, still "development"), kept
 * here as strings rather than imported from the conventions' incubating entry point, which the
 * OpenTelemetry project asks users to copy because it may change between releases.
 * https://opentelemetry.io/docs/specs/semconv/gen-ai/
 */
import type { ProviderName } from '../../llm/types.js';

export const GEN_AI = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  /** The name before v1.37: still what several back-ends (Langfuse, Phoenix) read. */
  system: 'gen_ai.system',
  requestModel: 'gen_ai.request.model',
  temperature: 'gen_ai.request.temperature',
  maxTokens: 'gen_ai.request.max_tokens',
  topP: 'gen_ai.request.top_p',
  outputType: 'gen_ai.output.type',
  responseModel: 'gen_ai.response.model',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheWriteTokens: 'gen_ai.usage.cache_creation.input_tokens',
  reasoningTokens: 'gen_ai.usage.reasoning.output_tokens',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  toolName: 'gen_ai.tool.name',
  toolType: 'gen_ai.tool.type',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
} as const;

/** `error.type`, the general convention's failure class. */
export const ERROR_TYPE = 'error.type';

/** Scout's own attributes (no convention covers them). */
export const SCOUT = {
  surface: 'scout.surface',
  mode: 'scout.mode',
  outcome: 'scout.outcome',
  costUsd: 'scout.cost_usd',
  totalTokens: 'scout.total_tokens',
  toolCalls: 'scout.tool_calls',
  searches: 'scout.searches',
  toolServer: 'scout.tool.server',
  searchProvider: 'scout.search.provider',
  searchCached: 'scout.search.cached',
  searchResults: 'scout.search.results',
  searchQuery: 'scout.search.query',
  contextKind: 'scout.context.kind',
  contextMessages: 'scout.context.messages',
  contextBytes: 'scout.context.bytes',
  contextOutcome: 'scout.context.outcome',
  deliveryUpdates: 'scout.delivery.updates',
  deliveryError: 'scout.delivery.error',
  question: 'scout.question',
  answer: 'scout.answer',
} as const;

/** `gen_ai.provider.name` values: the conventions' well-known names where one exists. */
export function providerName(provider: ProviderName): string {
  switch (provider) {
    case 'gemini':
      return 'gcp.gemini';
    case 'openai-compatible':
      return 'openai_compatible';
    default:
      return provider;
  }
}
