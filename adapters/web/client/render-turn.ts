/**
 * One turn in the transcript: its steps as <details> blocks, the phase and status lines, the
 * answer, a plan's or tool's confirmation, the statistics footer and any error. The turn object is
 * patched in place (protocol.ts applyPatch); `update()` redraws what changed on the next frame.
 */
import { announce } from './announcer.js';
import { h, show } from './dom.js';
import { onNextFrame } from './frame.js';
import { renderInline, renderMarkdown } from './markdown.js';
import type { Confirm, Source, Step, StepStatus, Turn } from './protocol.js';
import { S } from './strings.js';

export interface TurnActions {
  confirm(confirmId: string, accept: boolean): Promise<void>;
}

const STATUS_MARK: Record<StepStatus, string> = {
  pending: '○',
  running: '',
  done: '✓',
  failed: '✗',
  skipped: '↷',
  info: 'ℹ',
};

const STATUS_WORD: Record<StepStatus, () => string> = {
  pending: () => S.stepPending,
  running: () => S.stepRunning,
  done: () => S.stepDone,
  failed: () => S.stepFailed,
  skipped: () => S.stepSkipped,
  info: () => S.stepInfo,
};

interface StepNode {
  el: HTMLDetailsElement;
  mark: HTMLElement;
  title: HTMLElement;
  word: HTMLElement;
  body: HTMLElement;
  shown: { title: string; body: string; status: StepStatus | ''; collapsed: boolean | null };
}

export class TurnView {
  readonly el: HTMLElement;
  private readonly stepsEl = h('div', { class: 'steps' });
  private readonly phaseEl = h('p', { class: 'phase' });
  private readonly statusEl = h('p', { class: 'status' });
  private readonly answerEl = h('div', { class: 'answer md' });
  private readonly referencesEl = h('section', { class: 'references' });
  private readonly confirmEl = h('div', { class: 'confirm', role: 'group' });
  private readonly footerEl = h('p', { class: 'footer' });
  private readonly errorEl = h('div', { class: 'error', role: 'alert' });
  private readonly noteEl = h('p', { class: 'note' });
  private readonly steps = new Map<string, StepNode>();
  private shownAnswer: string | null = null;
  private shownConfirm: string | null = null;
  private announcedFinal = false;

  constructor(
    public turn: Turn,
    private readonly actions: TurnActions,
    /** Live turns announce; turns loaded from history do not (they were not just said). */
    private readonly live: boolean,
  ) {
    this.el = h(
      'article',
      { class: 'turn', 'data-turn-id': turn.id },
      this.stepsEl,
      this.phaseEl,
      this.statusEl,
      this.confirmEl,
      this.answerEl,
      this.referencesEl,
      this.errorEl,
      this.noteEl,
      this.footerEl,
    );
    this.announcedFinal = !live || turn.answerFinal;
    this.render();
  }

  /** Replaces the turn object (a `turn` event) or notes it was patched; redraws on the next frame. */
  update(turn: Turn = this.turn): void {
    this.turn = turn;
    onNextFrame(this, () => this.render());
  }

  render(): void {
    const t = this.turn;
    this.el.setAttribute('aria-busy', String(!t.done));
    for (const step of t.steps) this.renderStep(step);

    this.phaseEl.textContent = t.phase ?? '';
    show(this.phaseEl, !t.done && Boolean(t.phase));
    this.statusEl.textContent = t.status ?? '';
    show(this.statusEl, !t.done && Boolean(t.status));

    this.renderConfirm(t.confirm);
    this.renderAnswer(t);

    // A stop the user asked for is a note, not an alert: the core's words for it (sent as the
    // turn's error) are said once, in the note's place.
    const alert = t.cancelled ? '' : (t.error ?? '');
    this.errorEl.textContent = alert;
    show(this.errorEl, Boolean(alert));
    const stopped = t.cancelled ? t.error || S.stopped : '';
    const notes = [stopped, t.notSaved ? S.notSaved : ''].filter(Boolean).join(' ');
    this.noteEl.textContent = notes;
    show(this.noteEl, Boolean(notes));
    this.footerEl.textContent = t.footer ?? '';
    show(this.footerEl, Boolean(t.footer));
  }

  private renderStep(step: Step): void {
    let node = this.steps.get(step.id);
    if (!node) {
      const mark = h('span', { class: 'step-mark', 'aria-hidden': 'true' });
      const title = h('span', { class: 'step-title' });
      const word = h('span', { class: 'sr-only' });
      const body = h('div', { class: 'step-body md' });
      const el = h(
        'details',
        { class: 'step', 'data-step-id': step.id },
        h('summary', {}, mark, title, word),
        body,
      );
      node = { el, mark, title, word, body, shown: { title: '', body: '', status: '', collapsed: null } };
      this.steps.set(step.id, node);
      this.stepsEl.append(el);
      if (this.live && (step.status === 'running' || step.status === 'pending'))
        announce(plainInline(step.title));
    }
    const { shown } = node;
    if (shown.title !== step.title) {
      node.title.replaceChildren(renderInline(step.title));
      shown.title = step.title;
    }
    if (shown.body !== step.body) {
      node.body.replaceChildren(renderMarkdown(step.body));
      show(node.body, step.body.trim() !== '');
      shown.body = step.body;
    }
    // The open state is set only when the step's state changes, so a block the reader opened or
    // closed by hand stays that way while its body streams.
    if (shown.status !== step.status || shown.collapsed !== step.collapsed) {
      const running = step.status === 'running' || step.status === 'pending';
      node.el.open = running || !step.collapsed;
      node.el.className = `step step-${step.kind} status-${step.status}`;
      node.mark.textContent = STATUS_MARK[step.status];
      node.word.textContent = ` (${STATUS_WORD[step.status]()})`;
      shown.status = step.status;
      shown.collapsed = step.collapsed;
    }
  }

  private renderConfirm(confirm: Confirm | undefined): void {
    const key = confirm ? `${confirm.id}:${confirm.state}:${confirm.text}` : '';
    if (key === this.shownConfirm) return;
    this.shownConfirm = key;
    show(this.confirmEl, Boolean(confirm));
    if (!confirm) {
      this.confirmEl.replaceChildren();
      return;
    }
    const text = h('div', { class: 'md' }, renderMarkdown(confirm.text));
    const [yes, no] = confirm.kind === 'plan' ? [S.run, S.cancel] : [S.approve, S.deny];
    if (confirm.state !== 'waiting') {
      const word = confirm.state === 'accepted' ? S.accepted : S.declined;
      this.confirmEl.replaceChildren(text, h('p', { class: `confirm-state ${confirm.state}` }, word));
      return;
    }
    const yesButton = h('button', { type: 'button', class: 'primary' }, yes);
    const noButton = h('button', { type: 'button' }, no);
    const answer = (accept: boolean) => {
      yesButton.disabled = true;
      noButton.disabled = true;
      this.actions.confirm(confirm.id, accept).catch(() => {
        yesButton.disabled = false;
        noButton.disabled = false;
      });
    };
    yesButton.addEventListener('click', () => answer(true));
    noButton.addEventListener('click', () => answer(false));
    this.confirmEl.replaceChildren(text, h('div', { class: 'confirm-buttons' }, yesButton, noButton));
  }

  private renderAnswer(t: Turn): void {
    const key = `${t.answerFinal ? 'F' : 'S'}${t.answer}`;
    if (key !== this.shownAnswer) {
      this.shownAnswer = key;
      const titles = new Map(t.sources.map((s) => [s.n, s.title]));
      const text = t.answerFinal ? t.answer : linkMarkers(t.answer, t.sources);
      this.answerEl.replaceChildren(renderMarkdown(text, (n) => titles.get(n)));
      this.answerEl.classList.toggle('streaming', !t.answerFinal && !t.done);
      show(this.answerEl, t.answer.trim() !== '');
      this.renderReferences(t);
    }
    if (t.answerFinal && !this.announcedFinal) {
      this.announcedFinal = true;
      announce(this.answerEl.textContent ?? '');
    }
  }

  /**
   * The final answer's Markdown carries its own References (the core appends them). A list is drawn
   * here only when sources came without one, so the reader can still follow them.
   */
  private renderReferences(t: Turn): void {
    const needed = t.answerFinal && t.sources.length > 0 && !this.answerEl.querySelector('a.cite');
    show(this.referencesEl, needed);
    if (!needed) {
      this.referencesEl.replaceChildren();
      return;
    }
    const items = t.sources.map((s) => {
      const safe = /^https?:/i.test(s.url);
      const link = safe
        ? h('a', { href: s.url, target: '_blank', rel: 'noopener noreferrer nofollow' }, s.title || s.url)
        : h('span', {}, s.title || s.url);
      const about = [s.site, s.published].filter(Boolean).join(', ');
      return h('li', { value: String(s.n) }, link, about ? ` — ${about}` : '');
    });
    this.referencesEl.replaceChildren(h('h3', {}, S.sources), h('ol', {}, ...items));
  }
}

/** Code (fenced, possibly still open while streaming, or inline): no citations are linked inside. */
const CODE = /(```[\s\S]*?(?:```|$)|`[^`\n]*`)/;

/**
 * While an answer streams its `[n]` markers are raw (the core links them in the final text); where
 * the sources are already known they link here too, so citations are clickable before the end.
 */
function linkMarkers(answer: string, sources: Source[]): string {
  if (sources.length === 0) return answer;
  const byN = new Map(sources.filter((s) => /^https?:/i.test(s.url)).map((s) => [s.n, s.url]));
  return answer
    .split(CODE)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part.replace(/\[(\d+(?:\s*,\s*\d+)*)\](?![(\]])/g, (whole, list: string) => {
            const links = list.split(/\s*,\s*/).map((n) => {
              const url = byN.get(Number(n));
              return url ? `[[${n}]](<${url.replace(/[<>\s]/g, encodeURIComponent)}>)` : `[${n}]`;
            });
            return links.join('') || whole;
          }),
    )
    .join('');
}

function plainInline(markdown: string): string {
  const holder = document.createElement('div');
  holder.append(renderInline(markdown));
  return holder.textContent ?? '';
}
