import type { ProviderName } from '../llm/types.js';

/** Prompt templates from `prompts/` (placeholder; the LLM-layer work replaces this file). */
export type PromptName = 'chat.system' | 'agent.system' | 'answer.system' | 'plan.system' | 'summary.system' | 'error';

export interface PromptLibrary {
  /**
   * Renders `prompts/<name>.md` (or `<name>.<provider>.md` when present) with `{variable}`
   * placeholders. Throws when a placeholder has no value.
   */
  render(name: PromptName, variables: Record<string, string | number>, provider?: ProviderName): string;
}
