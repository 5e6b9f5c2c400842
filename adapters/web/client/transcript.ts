/**
 * The open conversation's transcript: questions, command replies and turns, in order, inside one
 * role="log" region. It keeps one TurnView per turn id so patches find their turn, and stays scrolled
 * to the bottom while the reader is there (not when they scrolled up to read).
 */
import { h } from './dom.js';
import { renderMarkdown } from './markdown.js';
import type { Entry, Turn, TurnPatch } from './protocol.js';
import { applyPatch } from './protocol.js';
import { type TurnActions, TurnView } from './render-turn.js';
import { S } from './strings.js';

export class Transcript {
  readonly el: HTMLElement;
  private readonly turns = new Map<string, TurnView>();
  private count = 0;
  private stick = true;

  constructor(
    private readonly actions: TurnActions,
    /** Called when the transcript becomes empty or not, or a turn starts or ends. */
    private readonly onChange: () => void,
  ) {
    this.el = h('div', {
      class: 'log',
      role: 'log',
      'aria-live': 'polite',
      'aria-label': S.transcript,
      tabindex: '0',
    });
  }

  /**
   * Follows new content while the reader is at the bottom. The log is its own scroller (focusable,
   * so the keyboard can scroll it); its content is watched through a wrapper that grows with it.
   */
  follow(): void {
    const scroller = this.el;
    scroller.addEventListener('scroll', () => {
      this.stick = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 48;
    });
    new MutationObserver(() => {
      if (this.stick) scroller.scrollTop = scroller.scrollHeight;
    }).observe(scroller, { childList: true, subtree: true, characterData: true });
  }

  get empty(): boolean {
    return this.count === 0;
  }

  /** The turn still running, if any (it gets the Stop button). */
  running(): Turn | null {
    for (const view of this.turns.values()) if (!view.turn.done) return view.turn;
    return null;
  }

  /** Replaces everything shown (a conversation opened, or a `snapshot` event). */
  reset(entries: Entry[], turn: Turn | null): void {
    this.el.replaceChildren();
    this.turns.clear();
    this.count = 0;
    this.stick = true;
    for (const entry of entries) this.add(entry, false);
    if (turn) this.upsertTurn(turn, false);
    this.onChange();
  }

  /** A `user` or `reply` event, or an entry of a loaded conversation. */
  add(entry: Entry, live = true): void {
    if (entry.kind === 'turn') {
      this.upsertTurn(entry.turn, live);
      return;
    }
    this.count += 1;
    if (entry.kind === 'user') {
      const files = entry.files?.length
        ? h(
            'ul',
            { class: 'chips', 'aria-label': S.attachments },
            ...entry.files.map((name) => h('li', { class: 'chip' }, name)),
          )
        : null;
      this.el.append(
        h(
          'div',
          { class: 'entry user' },
          h('span', { class: 'sr-only' }, `${S.you}: `),
          h('p', { class: 'user-text' }, entry.text),
          files,
        ),
      );
    } else {
      const body = h(
        'div',
        { class: `entry reply md${entry.error ? ' error' : ''}` },
        renderMarkdown(entry.text),
      );
      if (entry.error) body.setAttribute('role', 'alert');
      this.el.append(body);
    }
    this.onChange();
  }

  /** A `turn` event: a new turn, or the whole state of one already shown. */
  upsertTurn(turn: Turn, live = true): void {
    const existing = this.turns.get(turn.id);
    if (existing) {
      existing.update(turn);
    } else {
      const view = new TurnView(turn, this.actions, live);
      this.turns.set(turn.id, view);
      this.count += 1;
      this.el.append(view.el);
    }
    this.onChange();
  }

  /** A `patch` event; one for a turn not shown (missed) is ignored until the next snapshot. */
  patch(patch: TurnPatch): boolean {
    const view = this.turns.get(patch.turnId);
    if (!view) return false;
    const wasDone = view.turn.done;
    applyPatch(view.turn, patch);
    view.update();
    if (wasDone !== view.turn.done) this.onChange();
    return true;
  }
}
