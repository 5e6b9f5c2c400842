/**
 * A reply: text said whole and once, outside a turn's live messages — a slash command's answer
 * (Slack, Discord), a turn sink's `reply` and private reply (a usage limit, `@Scout help`). It goes
 * out under the same delivery policy as a turn's writes, so the adapters do not each write their own
 * split-and-send loop:
 *
 * - the text is made well formed and adapted to the platform once (its Markdown, mentions defused),
 *   then split at the platform's limit (split-text.ts: never inside a code fence, link or word);
 * - the parts go in order, each through its route's pace where the platform limits that route per
 *   channel (channel-pacer.ts), and each is retried on rate limits and outages until it lands or
 *   the deadline passes (delivery.ts `landFinal`: a reply is a final state);
 * - routes are where a part may go, best first (Slack: the ephemeral, then the command's
 *   response_url or a DM): a route that fails a part is left for that part and the ones after it;
 *   when the last one fails, the parts after it are not sent and the failure is thrown.
 */
import type { ChannelPace } from './channel-pacer.js';
import { landFinal } from './delivery.js';
import { splitMessage } from './split-text.js';
import { wellFormed } from './well-formed.js';

/** How a platform takes a reply's text. */
export interface ReplyFormat {
  /** The most characters of Markdown one message holds. */
  maxChars: number;
  /**
   * Rewrites the text for the platform (its Markdown, mentions defused) before the split, so what it
   * adds counts toward the limit.
   */
  adapt?: (markdown: string) => string;
}

/** One place a reply's parts may go. */
export interface ReplyRoute {
  /**
   * Writes one part (`index` 0 is the reply's first part, e.g. the edit of a deferred interaction
   * reply). Platform errors come classified (`DeliveryError`) so rate limits are retried.
   */
  write(part: string, index: number): Promise<unknown>;
  /** The pace the route's posts take their slot from; absent where the channel's limits do not count it. */
  pace?: ChannelPace;
  /** This route gave up on a part and the next route takes it (and the rest): for the log. */
  onFallback?: (err: unknown) => void;
}

/** The parts a reply is sent as: well formed, adapted, split at the platform's limit. */
export function replyParts(text: string, format: ReplyFormat): string[] {
  const markdown = wellFormed(text);
  return splitMessage(format.adapt ? format.adapt(markdown) : markdown, format.maxChars);
}

/** Delivers `text` part by part over the first route that takes them; throws when one could go nowhere. */
export async function deliverReply(
  text: string,
  format: ReplyFormat,
  routes: readonly ReplyRoute[],
): Promise<void> {
  let current = 0;
  for (const [index, part] of replyParts(text, format).entries()) {
    for (;;) {
      const route = routes[current];
      if (!route) throw new Error('reply: no route to deliver it');
      const write = () => route.write(part, index);
      try {
        await landFinal(() => (route.pace ? route.pace.run('post', write) : write()));
        break;
      } catch (err) {
        if (current === routes.length - 1) throw err;
        route.onFallback?.(err);
        current++;
      }
    }
  }
}
