/**
 * The model each provider gets when a person names only the provider's key: current models, not
 * ones the provider has deprecated (a test checks the Anthropic SDK's deprecation list). DeepSeek's
 * comes from DEEPSEEK_MODEL_VARIANT; an OpenAI-compatible server's from OPENAI_COMPATIBLE_MODEL.
 */
export const DEFAULT_MODELS = Object.freeze({
  openai: 'gpt-4.1-mini',
  anthropic: 'claude-sonnet-5-5',
  gemini: 'gemini-2.5-flash',
});
