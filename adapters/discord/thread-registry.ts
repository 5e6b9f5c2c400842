/**
 * Which threads Scout owns: those it opened on a mention (a mention inside someone else's thread
 * does not make it Scout's). Kept in the store's `meta` namespace, not in memory, so a restart or
 * another shard keeps answering follow-ups.
 */
import type Keyv from 'keyv';

/** Threads stay Scout's for a month of silence; Discord archives idle threads within a week anyway. */
export const THREAD_OWNERSHIP_TTL_MS = 30 * 24 * 60 * 60 * 1000;

const key = (threadId: string) => `discord:thread:${threadId}`;

export class ThreadRegistry {
  constructor(private readonly meta: Keyv) {}

  async claim(threadId: string): Promise<void> {
    await this.meta.set(key(threadId), true, THREAD_OWNERSHIP_TTL_MS);
  }

  async owns(threadId: string): Promise<boolean> {
    return (await this.meta.get(key(threadId))) === true;
  }
}
