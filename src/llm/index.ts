/** The model layer's public surface. */
export * from './types.js';
export { createLlmClient, createLlmClientFromConfig, endpointsFromEnv } from './create-llm-client.js';
export type { LlmClientOptions, ProviderEndpoint } from './create-llm-client.js';
export { collectResponse } from './collect-response.js';
export { countTokens, countMessageTokens, warnIfNearContextWindow, CONTEXT_WARNING_RATIO } from './tokens.js';
export { estimateCost, findPrice, loadPriceTable, BUILT_IN_PRICES } from './pricing.js';
export type { Price, PriceTable } from './pricing.js';
export { LLM_ERROR_MESSAGES } from './error-messages.js';
export { repairDeepSeekHistory } from './deepseek-repair.js';
