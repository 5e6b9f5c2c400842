/**
 * The core's one call into src/context for a turn: reads what the adapter offers (earlier messages,
 * attachments) with the configured budgets and the turn's models, and says what to add to the
 * model's messages and to the stored history.
 */
import type { HearStep } from '../turn-steps.js';
import type { Config } from '../config/env.js';
import type { ChatMessage, ModelConfig } from '../llm/types.js';
import type { Logger } from '../logger.js';
import type { TurnEvent } from '../render/events.js';
import type { Locale } from '../surface.js';
import type { ContextCache } from './context-cache.js';
import { gatherContext } from './gather-context.js';
import type { MessageContextSource } from './types.js';
import { canSeeImages, imageLimits } from './vision.js';

/** Default budget when CONTEXT_MAX_TOKENS is unset: a quarter of the window, capped. */
const DEFAULT_BUDGET_CAP = 16_000;
/** Tokens one image costs at most in the providers' accounting (≈1,600 for Anthropic at 1568 px). */
export const TOKENS_PER_IMAGE = 1_600;

export function contextBudget(config: Config): number {
  const env = config.env;
  return env.CONTEXT_MAX_TOKENS ?? Math.min(DEFAULT_BUDGET_CAP, Math.floor(env.LLM_CONTEXT_WINDOW / 4));
}

export interface TurnContextInput {
  source: MessageContextSource;
  conversationId: string;
  /** The conversation has stored history (else everything is read again, e.g. after /reset). */
  hasHistory: boolean;
  models: ModelConfig[];
  config: Config;
  cache: ContextCache;
  locale: Locale;
  emit(event: TurnEvent): void;
  signal: AbortSignal;
  logger: Logger;
  /** The turn's scope hears each read (traces). */
  hearStep?: HearStep;
}

export interface TurnContextMessages {
  /** Sent to the model just before the question (with the images); undefined when nothing was read. */
  forModel?: ChatMessage;
  /** Kept in history instead (image bytes replaced by their names). */
  forHistory?: ChatMessage;
  /** Tokens the context costs, to reserve when fitting the history. */
  tokens: number;
}

export async function readTurnContext(input: TurnContextInput): Promise<TurnContextMessages> {
  const env = input.config.env;
  const after = input.hasHistory ? await input.cache.lastSeen(input.conversationId) : undefined;
  const vision = input.models.every(canSeeImages);
  const limits = input.models.map(imageLimits);
  const gathered = await gatherContext({
    source: input.source,
    after,
    readThread: env.THREAD_CONTEXT === 'on',
    budgetTokens: contextBudget(input.config),
    maxImages: env.CONTEXT_MAX_IMAGES,
    maxFileBytes: env.CONTEXT_MAX_FILE_BYTES,
    vision,
    imageLimits: {
      maxEdge: Math.min(...limits.map((l) => l.maxEdge)),
      maxBytes: Math.min(...limits.map((l) => l.maxBytes)),
    },
    locale: input.locale,
    emit: input.emit,
    signal: input.signal,
    conversationId: input.conversationId,
    logger: input.logger,
    ...(input.hearStep ? { hearStep: input.hearStep } : {}),
  });
  if (!gathered.text) return { tokens: 0 };
  return {
    forModel: {
      role: 'user',
      content: gathered.text,
      ...(gathered.images.length > 0 ? { images: gathered.images } : {}),
    },
    forHistory: { role: 'user', content: gathered.text },
    tokens: Math.ceil(gathered.text.length / 3) + gathered.images.length * TOKENS_PER_IMAGE,
  };
}
