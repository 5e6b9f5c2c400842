import type { ChatMessage } from '../llm/types.js';
import type { Stores } from './types.js';

/** What the `conversations` namespace holds per conversation id. Expires SESSION_TTL after the last turn. */
export interface ConversationRecord {
  channelId: string;
  messages: ChatMessage[];
  /** Epoch ms of the last append. */
  updatedAt: number;
  /** The running summary of turns folded out of `messages` (src/core/conversation-memory.ts). */
  summary?: ConversationSummary;
}

/** What earlier turns said, written by the summary model once they no longer fit the context window. */
export interface ConversationSummary {
  text: string;
  /** How many stored messages it covers, over every fold (they are no longer in `messages`). */
  messages: number;
  /** Its tokens, counted when written: fitting the history around it then tokenises nothing. */
  tokens: number;
  /** Epoch ms of the last fold. */
  updatedAt: number;
}

/** Conversations remembered per channel for clearing; older ones expire by TTL on their own. */
export const MAX_INDEXED_CONVERSATIONS = 500;
/** Messages kept per conversation; the core trims further to fit the model's context window. */
export const MAX_STORED_MESSAGES = 400;
/** The channel index is shared by the channel's conversations, so its read-modify-write is locked. */
const INDEX_LOCK_TTL_MS = 10_000;
const INDEX_LOCK_WAIT_MS = 10_000;

/** `meta` key of the list of conversation ids seen in a channel (Keyv cannot list keys portably). */
export function channelIndexKey(channelId: string): string {
  return `channel-conversations:${channelId}`;
}

export async function loadHistory(stores: Stores, conversationId: string): Promise<ChatMessage[]> {
  const record = (await stores.conversations.get(conversationId)) as ConversationRecord | undefined;
  return record?.messages ?? [];
}

/**
 * Appends one turn's messages and refreshes the TTL. Callers hold the conversation's lock, so the
 * record's read-modify-write does not race; the channel index takes its own lock.
 */
export async function appendTurn(
  stores: Stores,
  conversationId: string,
  channelId: string,
  messages: ChatMessage[],
  ttlMs: number,
): Promise<void> {
  const previous = (await stores.conversations.get(conversationId)) as ConversationRecord | undefined;
  const record: ConversationRecord = {
    channelId,
    messages: capMessages([...(previous?.messages ?? []), ...messages]),
    updatedAt: Date.now(),
    ...(previous?.summary ? { summary: previous.summary } : {}),
  };
  await stores.conversations.set(conversationId, record, ttlMs);
  await addToChannelIndex(stores, channelId, conversationId, ttlMs);
}

export async function clearConversation(stores: Stores, conversationId: string): Promise<void> {
  await stores.conversations.delete(conversationId);
}

/** Deletes every conversation history of the channel (mode or model switch). Returns how many existed. */
export async function clearChannelConversations(stores: Stores, channelId: string): Promise<number> {
  const lease = await stores.locks.acquire(indexLockKey(channelId), {
    ttlMs: INDEX_LOCK_TTL_MS,
    waitMs: INDEX_LOCK_WAIT_MS,
  });
  try {
    const ids = ((await stores.meta.get(channelIndexKey(channelId))) as string[] | undefined) ?? [];
    let cleared = 0;
    for (const id of ids) {
      if (await stores.conversations.delete(id)) cleared++;
    }
    await stores.meta.delete(channelIndexKey(channelId));
    return cleared;
  } finally {
    await lease.release();
  }
}

async function addToChannelIndex(stores: Stores, channelId: string, conversationId: string, ttlMs: number) {
  const lease = await stores.locks.acquire(indexLockKey(channelId), {
    ttlMs: INDEX_LOCK_TTL_MS,
    waitMs: INDEX_LOCK_WAIT_MS,
  });
  try {
    const key = channelIndexKey(channelId);
    const ids = ((await stores.meta.get(key)) as string[] | undefined) ?? [];
    // Most recent last, each id once; the oldest fall off (their histories still expire by TTL).
    const next = [...ids.filter((id) => id !== conversationId), conversationId].slice(
      -MAX_INDEXED_CONVERSATIONS,
    );
    await stores.meta.set(key, next, ttlMs);
  } finally {
    await lease.release();
  }
}

function indexLockKey(channelId: string): string {
  return `channel-index:${channelId}`;
}

/** Keeps the newest messages, starting at a user message so no turn is cut in half. */
function capMessages(messages: ChatMessage[]): ChatMessage[] {
  if (messages.length <= MAX_STORED_MESSAGES) return messages;
  const kept = messages.slice(-MAX_STORED_MESSAGES);
  const firstUser = kept.findIndex((m) => m.role === 'user');
  return firstUser > 0 ? kept.slice(firstUser) : kept;
}
