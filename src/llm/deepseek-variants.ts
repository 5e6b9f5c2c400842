/**
 * DeepSeek model ids, as data: the one place to update when DeepSeek renames models.
 * The seeds' names (`deepseek-chat`, `deepseek-reasoner`) were retired on 2026-07-24; they stay
 * accepted as aliases of the current flash model with thinking off / on.
 */
export interface DeepSeekVariant {
  /** The id sent to the API. */
  apiModel: string;
  /** Sent as `thinking: { type }`; reasoning_content streams only when enabled. */
  thinking: boolean;
}

export const DEEPSEEK_VARIANTS: Readonly<Record<string, DeepSeekVariant>> = Object.freeze({
  // Aliases kept from the seeds.
  'deepseek-chat': { apiModel: 'deepseek-flash', thinking: false },
  'deepseek-reasoner': { apiModel: 'deepseek-flash', thinking: true },
  // Current ids.
  'deepseek-flash': { apiModel: 'deepseek-flash', thinking: false },
  'deepseek-v4-flash': { apiModel: 'deepseek-v4-flash', thinking: false },
  'deepseek-v4-pro': { apiModel: 'deepseek-v4-pro', thinking: true },
});

export const DEFAULT_DEEPSEEK_VARIANT = 'deepseek-chat';

export function resolveDeepSeekVariant(name: string): DeepSeekVariant | undefined {
  return DEEPSEEK_VARIANTS[name];
}
