/**
 * One turn on the web: the view the core folds its events into, sent to the conversation's hub as
 * the difference since the last send (at most once a frame, so a burst of tokens is one event), the
 * plan's Run / Cancel and a tool's Approve / Deny as questions the page answers with a POST, and the
 * finished turn written to the conversation's transcript, whether or not anyone still watches.
 */
import { randomBytes } from 'node:crypto';
import type { UserText } from '../../src/i18n/phrase.js';
import { say } from '../../src/i18n/say.js';
import type { Logger } from '../../src/logger.js';
import type { PlanProposal } from '../../src/modes/plan/plan-types.js';
import { approvalMarkdown, planMarkdown } from '../../src/render/turn-markdown.js';
import { emptyView, type TurnView } from '../../src/render/view.js';
import type { Locale, TurnSink } from '../../src/surface.js';
import type { ToolApprovalRequest } from '../../src/tools/types.js';
import type { ConversationHub } from './conversation-hub.js';
import type { WebConversations } from './conversations.js';
import { diffTurn, toWireTurn, type WireConfirm, type WireTurn } from './wire.js';

/**
 * At most one event a frame, not one per token: a change goes at once when nothing was sent in the
 * last frame, else when the frame is over (so a token never waits a whole frame for nothing).
 */
export const FRAME_MS = 16;
/** Characters of a tool call's arguments shown in its approval request. */
const APPROVAL_CHARS = 4_000;

/** Questions waiting for the page's answer, across every turn: POST …/confirm looks them up here. */
export class PendingConfirms {
  readonly #waiting = new Map<string, { owner: string; answer: (accept: boolean) => void }>();

  add(key: string, owner: string, answer: (accept: boolean) => void): void {
    this.#waiting.set(key, { owner, answer });
  }

  delete(key: string): void {
    this.#waiting.delete(key);
  }

  /** Answers a waiting question of `owner`'s; false when there is none (already answered, ended). */
  answer(key: string, owner: string, accept: boolean): boolean {
    const waiting = this.#waiting.get(key);
    if (!waiting || waiting.owner !== owner) return false;
    this.#waiting.delete(key);
    waiting.answer(accept);
    return true;
  }
}

export interface WebSinkOptions {
  hub: ConversationHub;
  /** The conversation's key in `confirms` (user and conversation). */
  key: string;
  user: string;
  conversation: string;
  conversations: WebConversations;
  confirms: PendingConfirms;
  locale: Locale;
  logger: Logger;
}

export class WebSink implements TurnSink {
  readonly #id = randomBytes(6).toString('base64url');
  #view: TurnView | undefined;
  #sent: WireTurn | undefined;
  #confirm: WireConfirm | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** performance.now() of the last send. */
  #sentAt = Number.NEGATIVE_INFINITY;
  #ended = false;

  constructor(private readonly o: WebSinkOptions) {}

  update(view: TurnView): void {
    this.#view = view;
    if (this.#timer) return;
    const wait = this.#sentAt + FRAME_MS - performance.now();
    // setImmediate, not a 0 ms timer: the events folded in this same turn of the loop go together.
    if (wait <= 0) this.#timer = setImmediate(() => this.#flush()) as unknown as NodeJS.Timeout;
    else this.#timer = setTimeout(() => this.#flush(), wait);
  }

  /** Sends what changed since the last send (the whole turn, the first time). */
  #flush(): void {
    clearTimeout(this.#timer);
    clearImmediate(this.#timer as unknown as NodeJS.Immediate);
    this.#timer = undefined;
    this.#sentAt = performance.now();
    const next = toWireTurn(this.#id, this.#view ?? emptyView(), this.#confirm);
    const before = this.#sent;
    this.#sent = next;
    this.o.hub.running = next;
    if (!before) {
      this.o.hub.publish('turn', { turn: next });
      return;
    }
    const patch = diffTurn(before, next);
    if (patch) this.o.hub.publish('patch', patch);
  }

  async done(view: TurnView): Promise<void> {
    this.#view = view;
    this.#flush();
    this.#ended = true;
    this.o.hub.running = undefined;
    const turn = this.#sent;
    if (!turn) return;
    try {
      await this.o.conversations.append(this.o.user, this.o.conversation, {
        kind: 'turn',
        turn,
        at: Date.now(),
      });
    } catch (err) {
      // The browser has the answer; only a later visit misses it. The core saved the model's history.
      this.o.logger.warn({ err }, 'web transcript not saved');
    }
  }

  async reply(text: UserText, options?: { isError?: boolean }): Promise<void> {
    const entry = {
      kind: 'reply' as const,
      text: say(this.o.locale, text),
      error: options?.isError === true,
      at: Date.now(),
    };
    this.o.hub.publish('reply', { entry });
    try {
      await this.o.conversations.append(this.o.user, this.o.conversation, entry);
    } catch (err) {
      this.o.logger.warn({ err }, 'web transcript not saved');
    }
  }

  confirmPlan(plan: PlanProposal, signal: AbortSignal): Promise<boolean> {
    return this.#ask('plan', planMarkdown(plan, this.o.locale), signal);
  }

  confirmTool(request: ToolApprovalRequest, signal: AbortSignal): Promise<boolean> {
    return this.#ask('tool', approvalMarkdown(request, this.o.locale, APPROVAL_CHARS), signal);
  }

  /** Shows the question with its two buttons, and resolves with the press (false when withdrawn). */
  #ask(kind: WireConfirm['kind'], text: string, signal: AbortSignal): Promise<boolean> {
    if (this.#ended || signal.aborted) return Promise.resolve(false);
    const confirm: WireConfirm = { id: randomBytes(6).toString('base64url'), kind, text, state: 'waiting' };
    const key = `${this.o.key}:${confirm.id}`;
    this.#confirm = confirm;
    this.#flush();
    return new Promise<boolean>((resolve) => {
      const settle = (accept: boolean) => {
        signal.removeEventListener('abort', onAbort);
        this.o.confirms.delete(key);
        this.#confirm = { ...confirm, state: accept ? 'accepted' : 'declined' };
        this.#flush();
        resolve(accept);
      };
      const onAbort = () => settle(false);
      signal.addEventListener('abort', onAbort, { once: true });
      this.o.confirms.add(key, this.o.user, settle);
    });
  }
}
