/**
 * The "💭 Thinking…" step: created on the first reasoning chunk, streams the reasoning live, and on
 * `close()` collapses once and is retitled "💡 Thought process". Without reasoning there is no step.
 */
import { phrase } from '../../i18n/phrase.js';
import type { TurnEvent } from '../../render/events.js';

export class ThinkingStep {
  private open = false;
  private closed = false;

  constructor(
    private readonly id: string,
    private readonly emit: (event: TurnEvent) => void,
  ) {}

  append(text: string): void {
    if (!text || this.closed) return;
    if (!this.open) {
      this.open = true;
      this.emit({
        type: 'step-start',
        id: this.id,
        kind: 'thinking',
        title: phrase('step.thinking'),
        body: text,
      });
      return;
    }
    this.emit({ type: 'step-update', id: this.id, append: text });
  }

  /** Idempotent; also called on errors so no spinner is left behind. */
  close(failed = false): void {
    if (!this.open || this.closed) return;
    this.closed = true;
    this.emit({
      type: 'step-finish',
      id: this.id,
      status: failed ? 'failed' : 'done',
      title: phrase('step.thought'),
      collapse: true,
    });
  }
}
