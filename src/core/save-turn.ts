/**
 * A turn's answer into the conversation's history, and what the turn read marked as seen, so the
 * next turn reads only what comes after this message.
 */
import type { ContextCache } from '../context/context-cache.js';
import type { ChatMessage } from '../llm/types.js';
import type { Logger } from '../logger.js';
import { appendTurn } from '../store/conversation-store.js';
import type { Stores } from '../store/types.js';
import type { IncomingMessage } from '../surface.js';

/** False when the store refused (logged): the answer is on screen, only not remembered. */
export async function saveTurn(
  stores: Stores,
  contextCache: ContextCache,
  turn: { message: IncomingMessage; additions: ChatMessage[]; ttlMs: number; log: Logger },
): Promise<boolean> {
  const { message, additions, ttlMs, log } = turn;
  try {
    await appendTurn(stores, message.conversationId, message.channelId, additions, ttlMs);
    if (message.context) await contextCache.markSeen(message.conversationId, message.context.messageId);
    return true;
  } catch (err) {
    log.error({ err }, 'answer shown but not saved');
    return false;
  }
}
