/**
 * `/memory` shows the conversation's running summary (src/core/conversation-memory.ts) and
 * `/memory clear` forgets it, keeping the recent turns. Replies are private like every command's.
 * Slack slash commands carry no thread, so there it asks for the command in the thread instead.
 */
import type { Config } from '../config/env.js';
import { joinText, phrase } from '../i18n/phrase.js';
import { clearSummary, loadConversation } from '../store/conversation-summary.js';
import type { Stores } from '../store/types.js';
import type { CommandReply } from '../surface.js';
import { usageLine } from './commands.js';

/** The turn's conversation lock (scout.ts): a clear waits for a running turn instead of racing its fold. */
const LOCK_TTL_MS = 5_000;
const LOCK_WAIT_MS = 15_000;

export async function runMemoryCommand(
  deps: { config: Config; stores: Stores },
  args: string,
  ctx: { conversationId?: string },
): Promise<CommandReply> {
  const { conversationId } = ctx;
  const action = args.trim().toLowerCase();
  if (action !== '' && action !== 'clear') {
    return { text: joinText([phrase('usage.intro'), usageLine('memory')], ' '), changed: false };
  }
  if (!conversationId) return { text: phrase('memory.no-conversation'), changed: false };
  if (action === 'clear') {
    const lease = await deps.stores.locks.acquire(`conv:${conversationId}`, {
      ttlMs: LOCK_TTL_MS,
      waitMs: LOCK_WAIT_MS,
    });
    try {
      const cleared = await clearSummary(deps.stores, conversationId, deps.config.env.SESSION_TTL);
      return { text: phrase(cleared ? 'memory.cleared' : 'memory.empty'), changed: false };
    } finally {
      await lease.release();
    }
  }
  const { summary } = await loadConversation(deps.stores, conversationId);
  if (!summary) return { text: phrase('memory.empty'), changed: false };
  const date = `${new Date(summary.updatedAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return {
    text: phrase('memory.show', { count: summary.messages, date, text: summary.text }),
    changed: false,
  };
}
