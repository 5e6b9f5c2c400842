/**
 * The function-call conversation kept within the context window round after round. Every tool
 * result goes into it whole, and pages are the bulk of it (a page of Chinese text is about three
 * times the tokens of an English one of the same length): before each request the conversation is
 * measured and, when it would not fit, the oldest pages are shortened, then other tools' long outputs
 * (fit-pages.ts), in the tool messages that hold them. When even that is not enough the tool phase
 * ends (tool-phase.ts).
 */
import { CachedTokenCounter } from '../../llm/cached-token-counter.js';
import { loadTextCounter, maxMessageTokens, TOKENS_PER_REQUEST } from '../../llm/tokens.js';
import type { ChatMessage, ToolDefinition } from '../../llm/types.js';
import { PageFitter, type PageSlot, pageSlot } from '../turn/fit-pages.js';
import { delimit, type Observation, OBSERVATION_SEPARATOR } from '../turn/observations.js';

type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;

/** A tool message's content for the observations it holds. */
export function toolResultContent(observations: readonly Observation[]): string {
  return observations.map((o) => delimit(o)).join(OBSERVATION_SEPARATOR);
}

interface TrackedResult {
  message: ToolMessage;
  slots: PageSlot[];
  /** The observations the content was last written from. */
  written: Observation[];
  /** Length of the content they make; what follows (the evaluation's note for the model) stays as it is. */
  writtenLength: number;
}

export type WindowFit = 'fits' | 'shortened' | 'full';

export class ToolResultsWindow {
  private readonly tracked = new Map<ChatMessage, TrackedResult>();
  private readonly definitions: string;
  private counter?: CachedTokenCounter;
  private fitter?: PageFitter;

  /** `room`: tokens a request may take (context-room.ts); `definitions`: the tools each request offers. */
  constructor(
    private readonly room: number,
    definitions: readonly ToolDefinition[],
  ) {
    this.definitions = definitions.length > 0 ? JSON.stringify(definitions) : '';
  }

  /**
   * A tool message of this turn: `observations` are what its content was written from with
   * `toolResultContent` (none when it holds other text, such as a failed call's error prompt).
   */
  track(message: ToolMessage, observations: readonly Observation[]): void {
    const written = [...observations];
    this.tracked.set(message, {
      message,
      slots: written.map(pageSlot),
      written,
      writtenLength: written.length > 0 ? message.content.length : 0,
    });
  }

  /**
   * Before a request: whether `messages` fit, after shortening the oldest results when they did not.
   * Before any tool result there is nothing of this turn's to shorten, and the request goes as it is.
   */
  async fit(messages: ChatMessage[]): Promise<WindowFit> {
    if (this.tracked.size === 0) return 'fits';
    // The usual case is decided without the tokenizer: bytes bound tokens from above.
    if (maxMessageTokens(messages) + Buffer.byteLength(this.definitions) <= this.room) return 'fits';
    this.counter ??= new CachedTokenCounter(await loadTextCounter());
    this.fitter ??= new PageFitter(this.counter.text, 'function-call');
    if (this.tokens(messages) <= this.room) return 'fits';
    const slots = [...this.tracked.values()].flatMap((result) => result.slots);
    // The count reads the slots, not the messages: the messages are written once, after the fit.
    const over = this.fitter.fit(slots, () => this.tokens(messages) - this.room);
    this.rewrite();
    return over <= 0 ? 'shortened' : 'full';
  }

  /** The request's tokens, tool results counted by their observations (each counted once). */
  private tokens(messages: ChatMessage[]): number {
    const counter = this.counter as CachedTokenCounter;
    const fitter = this.fitter as PageFitter;
    let total = TOKENS_PER_REQUEST + counter.text(this.definitions);
    for (const message of messages) {
      const result = this.tracked.get(message);
      if (!result) {
        total += counter.message(message);
        continue;
      }
      const rest = message.content.slice(result.writtenLength);
      total += counter.message({ ...message, content: rest });
      for (const slot of result.slots) total += fitter.tokens(slot.current);
      total += Math.max(0, result.slots.length - 1) * counter.text(OBSERVATION_SEPARATOR);
    }
    return total;
  }

  /** Writes the messages whose pages were shortened, keeping what was appended after them. */
  private rewrite(): void {
    for (const result of this.tracked.values()) {
      const current = result.slots.map((slot) => slot.current);
      if (current.every((o, i) => o === result.written[i])) continue;
      const content = toolResultContent(current);
      result.message.content = content + result.message.content.slice(result.writtenLength);
      result.written = current;
      result.writtenLength = content.length;
    }
  }
}
