/**
 * What Scout has already read in each conversation: the id of the last message it answered there.
 * A follow-up reads only newer messages (the older ones are already in the conversation's history),
 * so nothing is fetched or sent to the model twice. Kept in the store's `meta` namespace, with the
 * history's TTL, so it holds across instances and restarts.
 */
import type Keyv from 'keyv';

const key = (conversationId: string) => `context:seen:${conversationId}`;

export class ContextCache {
  constructor(
    private readonly meta: Keyv,
    private readonly ttlMs: number,
  ) {}

  async lastSeen(conversationId: string): Promise<string | undefined> {
    const value: unknown = await this.meta.get(key(conversationId));
    return typeof value === 'string' ? value : undefined;
  }

  async markSeen(conversationId: string, messageId: string): Promise<void> {
    await this.meta.set(key(conversationId), messageId, this.ttlMs);
  }
}
