/**
 * One turn in the terminal. How the turn looks is the shared TurnRenderer's
 * (src/render/turn-renderer.ts), as on Slack and Discord; this file gives it the terminal's
 * primitives — the screen of terminal-screen.ts (post / edit / remove a message; redrawn in place on
 * a TTY, printed once at the end on a pipe), the payload builders of terminal-payloads.ts, no
 * message limit — and the terminal's controls: Ctrl-C is Stop (the surface cancels the turn), and
 * a plan's Run / Cancel or a tool's Approve / Deny are y/n questions at the prompt.
 */
import type { Logger } from '../../src/logger.js';
import { silentLogger } from '../../src/silent-logger.js';
import type { PlanProposal } from '../../src/modes/plan/plan-types.js';
import type { UserText } from '../../src/i18n/phrase.js';
import { say } from '../../src/i18n/say.js';
import { t } from '../../src/i18n/translate.js';
import { NO_CHANNEL_LIMITS } from '../../src/render/pace-rules.js';
import { workingLine } from '../../src/render/turn-markdown.js';
import { TurnRenderer } from '../../src/render/turn-renderer.js';
import type { TurnView } from '../../src/render/view.js';
import type { Locale, TurnSink } from '../../src/surface.js';
import type { ToolApprovalRequest } from '../../src/tools/types.js';
import { ANSI, PLAIN, replyText, TERMINAL_ANSWER_CHARS, terminalPayloads } from './terminal-payloads.js';
import { stripTerminalControls } from './terminal-safe.js';
import { type ScreenOutput, TerminalScreen, type TerminalPayload } from './terminal-screen.js';

/**
 * Growing answer text reaches the screen at most this late. The screen's writes cost nothing (no
 * platform, no rate limit: the renderer's edit interval is 0); the screen paces its own redraws.
 */
const RENDER_FRAME_MS = 16;

export type ConsoleOutput = ScreenOutput;

export interface ConsoleSinkOptions {
  /** Where the turn's error goes (`--once`: stderr); by default inline with the turn. */
  errors?: ConsoleOutput;
  /** `--once --yes`: approve tool calls that change something without asking. */
  approveTools?: boolean;
  logger?: Logger;
}

export class ConsoleSink implements TurnSink {
  readonly #screen: TerminalScreen;
  readonly #renderer: TurnRenderer<TerminalPayload, number>;
  readonly #live: boolean;

  constructor(
    output: ConsoleOutput,
    /** Asks a question at the prompt; rejects when `signal` aborts (Ctrl-C, the plan timing out). */
    private readonly ask?: (question: string, signal?: AbortSignal) => Promise<string>,
    private readonly locale: Locale = 'en',
    private readonly options: ConsoleSinkOptions = {},
  ) {
    this.#live = Boolean(output.isTTY);
    this.#screen = new TerminalScreen(output);
    this.#renderer = new TurnRenderer<TerminalPayload, number>({
      writer: this.#screen,
      // ANSI only on a terminal: a pipe or a file gets plain text.
      build: terminalPayloads(this.#style, locale),
      // The screen has no rate limit: nothing is paced per channel.
      limits: { answerChars: TERMINAL_ANSWER_CHARS, channel: NO_CHANNEL_LIMITS },
      locale,
      logger: options.logger ?? silentLogger,
      intervalMs: 0,
      renderFrameMs: RENDER_FRAME_MS,
    });
  }

  get #style() {
    return this.#live ? ANSI : PLAIN;
  }

  /** Shows "⏳ Working…" at once on a terminal, so a turn is visibly working before its first event. */
  begin(): void {
    if (this.#live) this.#screen.placeholder([workingLine(this.locale), '']);
  }

  /**
   * A line the user typed while this turn runs, shown as queued: above the turn while all of it is
   * still live, else under the turn once it is done (so the answer's text is never split).
   */
  note(text: UserText): void {
    this.#screen.note(this.#style.dim(say(this.locale, text)));
  }

  update(view: TurnView): void {
    this.#renderer.update(view);
  }

  async done(view: TurnView): Promise<void> {
    const errors = this.options.errors;
    if (errors && view.error) errors.write(`${stripTerminalControls(view.error)}\n`);
    // `--once` keeps stdout for the answer: scripts tell the two apart.
    const { error: _shownOnStderr, ...withoutError } = view;
    await this.#renderer.done(errors ? withoutError : view);
    this.#screen.close();
  }

  /**
   * The message is handled, turn or not: nothing of it stays live (a "Working…" shown by `begin` for
   * a message that got neither a turn nor a reply goes), and queued notes print.
   */
  end(): void {
    this.#screen.close();
  }

  /**
   * A reply that is not a turn. One that says why no answer came (a usage limit, storage down) goes
   * where the turn's error would (`--once`: stderr), so a script reading stdout never takes it for one.
   */
  async reply(text: UserText, options?: { isError?: boolean }): Promise<void> {
    const errors = this.options.errors;
    if (options?.isError && errors) {
      errors.write(`${stripTerminalControls(say(this.locale, text))}\n`);
      return;
    }
    this.#screen.print(`${replyText(say(this.locale, text), this.#style)}\n`);
  }

  async confirmPlan(plan: PlanProposal, signal: AbortSignal): Promise<boolean> {
    if (!this.ask) return true;
    return this.#renderer.confirmPlan(plan, () =>
      this.#question(t(this.locale, 'console.run-plan'), signal, (answer) => !/^n/i.test(answer)),
    );
  }

  /**
   * A tool that may change something: y/n at the prompt (no answer is no). Without a prompt
   * (`--once`) only `--yes` approves.
   */
  async confirmTool(request: ToolApprovalRequest, signal: AbortSignal): Promise<boolean> {
    if (!this.ask) return this.options.approveTools === true;
    return this.#renderer.confirmTool(request, () =>
      this.#question(t(this.locale, 'console.approve-tool'), signal, (answer) => /^y/i.test(answer)),
    );
  }

  /** Asks at the prompt under the turn as it stands; a withdrawn question (Ctrl-C, timeout) is no. */
  async #question(question: string, signal: AbortSignal, yes: (answer: string) => boolean): Promise<boolean> {
    // The renderer's writes of the latest view land within this turn of the event loop: let them,
    // so the question is asked under the steps that led to it.
    await new Promise((resolve) => setImmediate(resolve));
    if (signal.aborted || !this.ask) return false;
    this.#screen.commit();
    try {
      const answer = await this.ask(question, signal);
      return !signal.aborted && yes(answer.trim());
    } catch {
      return false;
    }
  }
}
