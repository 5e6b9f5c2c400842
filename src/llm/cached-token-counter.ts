/**
 * A turn's token counts, each text tokenised once. Fitting a growing conversation into the context
 * window measures it before every request; tokenising it whole each time would cost the turn the
 * same pages again and again (the o200k tokenizer is the costly part, see tokens.ts), so counts are
 * kept per text and per message and only what is new or changed is counted.
 */
import { messageTokens, TOKENS_PER_REQUEST } from './tokens.js';
import type { ChatMessage } from './types.js';

export type TextTokenCounter = (text: string) => number;

export class CachedTokenCounter {
  private readonly texts = new Map<string, number>();
  /** A message's count, valid while its content is the one counted (a tool message may be rewritten). */
  private readonly messages = new WeakMap<ChatMessage, { content: string; tokens: number }>();

  constructor(private readonly countText: TextTokenCounter) {}

  /** Tokens of `text`, counted once per distinct text. */
  readonly text = (text: string): number => {
    if (!text) return 0;
    let tokens = this.texts.get(text);
    if (tokens === undefined) {
      tokens = this.countText(text);
      this.texts.set(text, tokens);
    }
    return tokens;
  };

  /** Tokens `message` adds to a request (its role's overhead included), as `countMessageTokens` counts. */
  message(message: ChatMessage): number {
    const known = this.messages.get(message);
    if (known && known.content === message.content) return known.tokens;
    // The message's own texts are counted directly: a page-sized content is seldom seen twice, and
    // keeping it in `texts` as well would hold every page of the turn in two places.
    const tokens = messageTokens(message, this.countText);
    this.messages.set(message, { content: message.content, tokens });
    return tokens;
  }

  /** Tokens of a request made of `messages` (the request's own overhead included), as `countMessageTokens` counts. */
  request(messages: readonly ChatMessage[]): number {
    let total = TOKENS_PER_REQUEST;
    for (const message of messages) total += this.message(message);
    return total;
  }
}
