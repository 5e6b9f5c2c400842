/**
 * The running summary kept in a conversation's record (`ConversationRecord.summary`), next to the
 * turns it replaced, so it shares their store, backend and TTL and goes with them on `/reset` or a
 * mode switch. Callers hold the conversation's lock (`conv:<id>`), as `appendTurn`'s callers do, so
 * each read-modify-write below does not race with a turn of the same conversation.
 */
import type { ChatMessage } from '../llm/types.js';
import type { ConversationRecord, ConversationSummary } from './conversation-store.js';
import type { Stores } from './types.js';

export interface StoredConversation {
  messages: ChatMessage[];
  summary?: ConversationSummary;
}

export async function loadConversation(stores: Stores, conversationId: string): Promise<StoredConversation> {
  const record = (await stores.conversations.get(conversationId)) as ConversationRecord | undefined;
  if (!record) return { messages: [] };
  return record.summary
    ? { messages: record.messages, summary: record.summary }
    : { messages: record.messages };
}

/**
 * Stores `summary` in place of the record's `folded` oldest messages (the ones it now covers) and
 * refreshes the TTL. Nothing is written when the record is gone (cleared meanwhile).
 */
export async function saveFold(
  stores: Stores,
  conversationId: string,
  summary: ConversationSummary,
  folded: number,
  ttlMs: number,
): Promise<void> {
  const record = (await stores.conversations.get(conversationId)) as ConversationRecord | undefined;
  if (!record) return;
  const next: ConversationRecord = {
    ...record,
    messages: record.messages.slice(folded),
    summary,
    updatedAt: Date.now(),
  };
  await stores.conversations.set(conversationId, next, ttlMs);
}

/** Forgets the summary, keeping the recent turns. Returns whether there was one. */
export async function clearSummary(stores: Stores, conversationId: string, ttlMs: number): Promise<boolean> {
  const record = (await stores.conversations.get(conversationId)) as ConversationRecord | undefined;
  if (!record?.summary) return false;
  const { summary: _cleared, ...rest } = record;
  await stores.conversations.set(conversationId, rest, ttlMs);
  return true;
}
