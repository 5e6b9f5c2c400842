/**
 * Who a Slack user is, as `users.info` says: the locale a turn answers in and the display name thread
 * context shows. One call per user per hour serves both. Concurrent requests for the same user share
 * it too: a burst of mentions from one person waits on one call instead of sending one each (Tier 4
 * counts every call). lru-cache's `fetch` does the coalescing. A failed lookup is not cached, so the
 * next turn asks again.
 */
import { LRUCache } from 'lru-cache';

/** What Scout reads of a user. */
export interface SlackUser {
  /** Slack's locale tag (e.g. `de-DE`), when Slack gave one. */
  locale?: string;
  /** What people see: the display name, else the real name, else the handle. */
  name?: string;
}

/** The part of `users.info`'s answer read here. */
interface UsersInfoAnswer {
  user?: {
    name?: string;
    real_name?: string;
    locale?: string;
    profile?: { display_name?: string; real_name?: string };
  };
}

export type UsersInfo = (args: { user: string; include_locale: boolean }) => Promise<UsersInfoAnswer>;

/** A user's locale and name change rarely: at most 5,000 users, each looked up once an hour. */
export const USER_CACHE = { max: 5_000, ttl: 3600_000 } as const;

export class SlackUserDirectory {
  readonly #users: LRUCache<string, SlackUser>;

  constructor(usersInfo: UsersInfo, limits: { max: number; ttl: number } = USER_CACHE) {
    this.#users = new LRUCache<string, SlackUser>({
      ...limits,
      // `include_locale`: without it Slack leaves the locale out of the answer.
      fetchMethod: async (user) => {
        const { user: found } = await usersInfo({ user, include_locale: true });
        const name = found?.profile?.display_name || found?.real_name || found?.name;
        return {
          ...(found?.locale ? { locale: found.locale } : {}),
          ...(name ? { name } : {}),
        };
      },
    });
  }

  /**
   * The user as Slack describes them, from the cache or one shared call; undefined when the call
   * failed (`onError` says why; the caller falls back to a default).
   */
  async lookup(user: string, onError?: (err: unknown) => void): Promise<SlackUser | undefined> {
    try {
      return await this.#users.fetch(user);
    } catch (err) {
      onError?.(err);
      return undefined;
    }
  }

  /** Whether `user` is known without a call (context reading bounds its calls per turn). */
  has(user: string): boolean {
    return this.#users.has(user);
  }
}
