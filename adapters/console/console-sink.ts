/**
 * A TurnSink for the terminal. On a TTY the steps block is redrawn in place (ANSI cursor moves) until
 * the answer starts, then the answer streams below it; finished steps collapse to one line. Without
 * a TTY (pipes, `--once`) nothing is drawn until the turn ends, then the whole turn is printed once.
 */
import type { PlanProposal } from '../../src/modes/plan/plan-types.js';
import { emptyView, type TurnView } from '../../src/render/view.js';
import type { Locale, TurnSink } from '../../src/surface.js';
import { t } from '../../src/i18n/translate.js';
import type { ToolApprovalRequest } from '../../src/tools/types.js';
import { safeView, stripStreamingControls, stripTerminalControls } from './terminal-safe.js';
import { ANSI, PLAIN, type Style, markdownToTerminal, renderTurnText, stepLines } from './terminal-text.js';

/** Redraws at most this often: smooth enough to read, cheap enough not to flicker. */
const REDRAW_INTERVAL_MS = 50;

export interface ConsoleOutput {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ConsoleSinkOptions {
  /** Where the turn's error goes (`--once`: stderr); by default inline with the turn. */
  errors?: ConsoleOutput;
  /** `--once --yes`: approve tool calls that change something without asking. */
  approveTools?: boolean;
}

export class ConsoleSink implements TurnSink {
  private liveRows = 0;
  /** Steps already printed for good (the plan, above its confirmation prompt): never drawn again. */
  private printedSteps = 0;
  /** Typed-ahead notes that arrived while the answer streamed: shown under the turn, not inside it. */
  private readonly pendingNotes: string[] = [];
  private printedAnswer = 0;
  private answerStarted = false;
  private timer: NodeJS.Timeout | undefined;
  private latest: TurnView | undefined;

  constructor(
    private readonly output: ConsoleOutput,
    /** Asks a question at the prompt; rejects when `signal` aborts (Ctrl-C, the plan timing out). */
    private readonly ask?: (question: string, signal?: AbortSignal) => Promise<string>,
    private readonly locale: Locale = 'en',
    private readonly options: ConsoleSinkOptions = {},
  ) {}

  private get live(): boolean {
    return Boolean(this.output.isTTY);
  }

  /** ANSI only on a terminal: a pipe or a file gets plain text. */
  private get style(): Style {
    return this.live ? ANSI : PLAIN;
  }

  /** Shows "… Thinking…" at once on a terminal, so a chat turn is visibly working before its first token. */
  begin(): void {
    if (this.live) this.draw(this.latest ?? emptyView());
  }

  /**
   * A line the user typed while this turn runs, shown as queued: above the live steps, or under the
   * turn once an answer is streaming (so the answer's text is never split).
   */
  note(text: string): void {
    if (!this.live) return;
    if (this.answerStarted) {
      this.pendingNotes.push(text);
      return;
    }
    this.clearLive();
    this.output.write(`${ANSI.dim(text)}\n`);
    this.draw(this.latest ?? emptyView());
  }

  update(view: TurnView): void {
    this.latest = view;
    if (!this.live || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.latest) this.draw(this.latest);
    }, REDRAW_INTERVAL_MS);
  }

  async done(raw: TurnView): Promise<void> {
    // Model and web text lose their escape sequences before anything of them is printed.
    const view = safeView(raw);
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const errors = this.options.errors;
    const shown = {
      ...view,
      steps: view.steps.slice(this.printedSteps),
      error: errors ? undefined : view.error,
    };
    if (errors && view.error) errors.write(`${view.error}\n`);
    if (!this.live) {
      this.output.write(renderTurnText(shown, PLAIN));
      return;
    }
    if (!this.answerStarted) {
      // Nothing streamed: print the whole turn in place of the live block.
      this.clearLive();
      this.output.write(renderTurnText(shown, ANSI));
      this.flushNotes();
      return;
    }
    this.draw(raw);
    const tail: string[] = [''];
    if (view.sources.length > 0) {
      tail.push('', ANSI.bold(referencesHeading(view, this.locale)));
      for (const s of view.sources) tail.push(`${s.n}. ${s.title} ${ANSI.dim(`<${s.url}>`)}`);
    }
    if (shown.error) tail.push('', ANSI.red(shown.error));
    if (view.footer) tail.push('', ANSI.dim(view.footer));
    this.output.write(`${tail.join('\n')}\n\n`);
    this.flushNotes();
  }

  private flushNotes(): void {
    for (const note of this.pendingNotes.splice(0)) this.output.write(`${ANSI.dim(note)}\n`);
  }

  async reply(text: string, _options?: { isError?: boolean }): Promise<void> {
    this.clearLive();
    const safe = stripTerminalControls(text);
    // Slack-style *bold* and `code` marks read as literal punctuation in a terminal: drop them.
    this.output.write(
      `${markdownToTerminal(safe.replace(/\*([^*\n]+)\*/g, '$1').replace(/`([^`\n]+)`/g, '$1'))}\n`,
    );
  }

  async confirmPlan(plan: PlanProposal, signal: AbortSignal): Promise<boolean> {
    if (!this.ask) return true;
    // The plan once (it is a step of the view), for good, with the question last under it.
    const view = safeView(this.latest ?? emptyView());
    this.clearLive();
    const steps = view.steps.slice(this.printedSteps);
    const lines = steps.flatMap((step) => stepLines(step, this.style));
    if (lines.length === 0)
      lines.push(
        ...plan.steps.map((s) => stripTerminalControls(`  ${s.step}. ${s.description} (${s.tool})`)),
      );
    this.output.write(`${lines.join('\n')}\n\n`);
    this.printedSteps += steps.length;
    if (signal.aborted) return false;
    try {
      const answer = await this.ask(t(this.locale, 'console.run-plan'), signal);
      return !signal.aborted && !/^n/i.test(answer.trim());
    } catch {
      // The question was withdrawn: the turn was stopped or the plan waited too long.
      return false;
    }
  }

  /**
   * A tool that may change something: y/n at the prompt (no answer is no). Without a prompt
   * (`--once`) only `--yes` approves.
   */
  async confirmTool(request: ToolApprovalRequest, signal: AbortSignal): Promise<boolean> {
    if (!this.ask) return this.options.approveTools === true;
    if (this.latest) this.draw(this.latest);
    const label = stripTerminalControls(request.title ? `${request.tool} (${request.title})` : request.tool);
    const args = stripTerminalControls(request.arguments);
    this.output.write(`\n${ANSI.bold(label)} ${t(this.locale, 'console.tool-wants')}:\n${ANSI.dim(args)}\n`);
    this.liveRows = 0;
    if (signal.aborted) return false;
    try {
      const answer = await this.ask(t(this.locale, 'console.approve-tool'), signal);
      return !signal.aborted && /^y/i.test(answer.trim());
    } catch {
      return false;
    }
  }

  private draw(raw: TurnView): void {
    const view = safeView(raw);
    if (!this.answerStarted) {
      const steps = view.steps.slice(this.printedSteps);
      const lines = steps.flatMap((step) => stepLines(step, ANSI, { live: true }));
      const answering = view.answer.length > 0;
      // The status line lives only until the answer starts: it must not stay above the answer.
      if (!answering && !view.done)
        lines.push(ANSI.dim(`… ${view.status ?? t(this.locale, 'console.thinking')}`));
      this.clearLive();
      if (lines.length > 0) this.output.write(`${lines.join('\n')}\n`);
      this.liveRows = lines.reduce((rows, line) => rows + this.rowsOf(line), 0);
      if (!answering) return;
      this.answerStarted = true;
      this.liveRows = 0;
      if (lines.length > 0) this.output.write('\n');
    }
    // Stream the raw answer as it grows; the final linked version differs only in link syntax,
    // which the References list below makes up for.
    // `printedAnswer` counts raw characters; a sequence cut off mid-stream waits for its end.
    if (!raw.answerFinal && raw.answer.length > this.printedAnswer) {
      const { safe, consumed } = stripStreamingControls(raw.answer.slice(this.printedAnswer));
      this.output.write(safe);
      this.printedAnswer += consumed;
    }
  }

  private clearLive(): void {
    if (this.liveRows > 0) this.output.write(`\x1b[${this.liveRows}A\r\x1b[J`);
    this.liveRows = 0;
  }

  private rowsOf(line: string): number {
    const visible = line.replace(/\x1b\[[0-9;]*m/g, '').length;
    // A pty may report 0 columns (no size set): count it as the usual 80.
    const columns = this.output.columns || 80;
    return Math.max(1, Math.ceil(visible / columns));
  }
}

function referencesHeading(view: TurnView, locale: Locale): string {
  const match = /\*\*(References|参考文献)\*\*/.exec(view.answer);
  return match?.[1] ?? t(locale, 'answer.references');
}
