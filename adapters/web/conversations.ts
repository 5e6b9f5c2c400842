/**
 * Each web user's conversations and what the page shows of them, in the store's `meta` namespace
 * (SQLite by default, Redis when configured), next to the history the core keeps for the model:
 * - `web:list:<user>`: the conversations, newest first (id, title, last use);
 * - `web:log:<user>:<id>`: the transcript (questions, replies, finished turns as the page drew them).
 * Keys embed the user, so nobody can reach another user's conversation by guessing its id.
 */
import { randomBytes } from 'node:crypto';
import type { Stores } from '../../src/store/types.js';
import type { WireEntry, WireStep } from './wire.js';

export interface ConversationInfo {
  id: string;
  title: string;
  updatedAt: number;
}

/** Conversations listed per user; the oldest beyond this are forgotten. */
export const MAX_CONVERSATIONS = 200;
/** Entries kept per transcript (the model's own history is bounded separately by the core). */
export const MAX_ENTRIES = 400;
/** A stored step's body is cut here: the page shows steps folded, and the answer is kept whole. */
const STORED_STEP_BODY_CHARS = 4_000;
/** A conversation not used for this long is forgotten. */
export const HISTORY_TTL_MS = 90 * 24 * 3600_000;
export const MAX_TITLE_CHARS = 120;

const listKey = (user: string) => `web:list:${user}`;
const logKey = (user: string, id: string) => `web:log:${user}:${id}`;

/** Conversation ids are made here only: 16 random url-safe characters. */
export const CONVERSATION_ID = /^[A-Za-z0-9_-]{16}$/;

/** A title from a first question: one line, at most MAX_TITLE_CHARS. */
export function titleFrom(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_TITLE_CHARS ? `${line.slice(0, MAX_TITLE_CHARS - 1)}…` : line;
}

export class WebConversations {
  constructor(private readonly stores: Stores) {}

  /** Read-modify-write of a user's list, under the store's lock (two tabs may change it at once). */
  async #change<T>(user: string, change: (list: ConversationInfo[]) => T): Promise<T> {
    const lease = await this.stores.locks.acquire(`lock:${listKey(user)}`, { ttlMs: 10_000, waitMs: 10_000 });
    try {
      const list = await this.list(user);
      const result = change(list);
      await this.stores.meta.set(listKey(user), list.slice(0, MAX_CONVERSATIONS), HISTORY_TTL_MS);
      return result;
    } finally {
      await lease.release();
    }
  }

  async list(user: string): Promise<ConversationInfo[]> {
    const list = (await this.stores.meta.get(listKey(user))) as ConversationInfo[] | undefined;
    return Array.isArray(list) ? list : [];
  }

  async find(user: string, id: string): Promise<ConversationInfo | undefined> {
    if (!CONVERSATION_ID.test(id)) return undefined;
    return (await this.list(user)).find((c) => c.id === id);
  }

  async create(user: string): Promise<ConversationInfo> {
    const info: ConversationInfo = {
      id: randomBytes(12).toString('base64url'),
      title: '',
      updatedAt: Date.now(),
    };
    await this.#change(user, (list) => list.unshift(info));
    return info;
  }

  async rename(user: string, id: string, title: string): Promise<ConversationInfo | undefined> {
    return this.#change(user, (list) => {
      const found = list.find((c) => c.id === id);
      if (found) found.title = titleFrom(title);
      return found;
    });
  }

  async remove(user: string, id: string): Promise<boolean> {
    const removed = await this.#change(user, (list) => {
      const i = list.findIndex((c) => c.id === id);
      if (i >= 0) list.splice(i, 1);
      return i >= 0;
    });
    if (removed) await this.stores.meta.delete(logKey(user, id));
    return removed;
  }

  /** Moves the conversation to the top; titles it from `question` when it has no title yet. */
  async touch(user: string, id: string, question?: string): Promise<boolean> {
    // The usual case, a follow-up in the conversation already on top and titled: nothing to write
    // (its time in the list is that of its last new position, which is all the sidebar orders by).
    const first = (await this.list(user))[0];
    if (first?.id === id && first.title) return false;
    return this.#change(user, (list) => {
      const i = list.findIndex((c) => c.id === id);
      if (i < 0) return false;
      const [info] = list.splice(i, 1) as [ConversationInfo];
      info.updatedAt = Date.now();
      const titled = !info.title && question !== undefined && question.trim() !== '';
      if (titled) info.title = titleFrom(question);
      list.unshift(info);
      return titled;
    });
  }

  async entries(user: string, id: string): Promise<WireEntry[]> {
    const entries = (await this.stores.meta.get(logKey(user, id))) as WireEntry[] | undefined;
    return Array.isArray(entries) ? entries : [];
  }

  /**
   * Appends entries to a transcript. One conversation's turns run one at a time (the core's lock), and
   * its questions are appended before their turn starts, under the same store lock as the list.
   */
  async append(user: string, id: string, ...added: WireEntry[]): Promise<void> {
    const lease = await this.stores.locks.acquire(`lock:${logKey(user, id)}`, {
      ttlMs: 10_000,
      waitMs: 10_000,
    });
    try {
      const entries = [...(await this.entries(user, id)), ...added.map(forStorage)];
      await this.stores.meta.set(logKey(user, id), entries.slice(-MAX_ENTRIES), HISTORY_TTL_MS);
    } finally {
      await lease.release();
    }
  }
}

function forStorage(entry: WireEntry): WireEntry {
  if (entry.kind !== 'turn') return entry;
  const steps: WireStep[] = entry.turn.steps.map((step) =>
    step.body.length > STORED_STEP_BODY_CHARS
      ? { ...step, body: `${step.body.slice(0, STORED_STEP_BODY_CHARS)}…` }
      : step,
  );
  const { confirm: _waiting, ...turn } = entry.turn;
  return { ...entry, turn: { ...turn, steps, status: null } };
}
