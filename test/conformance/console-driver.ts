/**
 * "console" and "console-tty": the real terminal chat (adapters/console, the real core), questions
 * written to its input, what it shows read from its output. On a pipe ("console") that is stdout as
 * printed, each message once when the turn ends; in a terminal ("console-tty", 80 × 24) it is what the
 * bytes leave on the screen and in the scrollback, played through the test emulator, live redraws
 * included. Either way the turn reads: the steps message (up to its closing empty line), the answer,
 * then the statistics footer after an empty line. The terminal has no platform: no rate limits,
 * refusals, mentions, message limits or buttons (Stop is Ctrl-C, Run is a y/n at the prompt), so the
 * turns that need those are skipped here, and no call is ever over a limit.
 */
import { PassThrough } from 'node:stream';
import { createConsoleSurface } from '../../adapters/console/console-surface.js';
import {
  markdownToTerminal,
  PLAIN,
  TERMINAL_ANSWER_CHARS,
} from '../../adapters/console/terminal-payloads.js';
import { startTestScout } from '../helpers/scout-harness.js';
import { TerminalEmulator } from '../console/terminal-emulator.js';
import type { Capability, SeenMessage, SurfaceDriver, SurfaceWorld, WorldOptions } from './surface-driver.js';
import { observedCore } from './surface-driver.js';

const PROMPT = '› ';

function terminalDriver(tty: boolean): SurfaceDriver {
  return {
    name: tty ? 'console-tty' : 'console',
    lacks: new Set<Capability>([
      // A terminal cannot redraw rows that scrolled into its scrollback.
      ...(tty ? (['edit-scrolled-text'] as const) : []),
      'plan-buttons',
      'stop-button',
      'feedback-buttons',
      'refusal',
      'private-replies',
      'failing-ephemeral',
      'native-stream',
      'storm:post',
      'storm:edit',
      'storm:delete',
      'storm:ephemeral',
      'storm:stream',
    ]),
    async start(options: WorldOptions = {}): Promise<SurfaceWorld> {
      const harness = await startTestScout({
        env: { ...(options.locale === 'zh' ? { BOT_LOCALE: 'zh' } : {}), ...options.env },
      });
      const observed = observedCore(harness.scout);
      const input = new PassThrough();
      const output = Object.assign(new PassThrough(), { isTTY: tty, columns: 80, rows: 24 });
      let printed = '';
      output.on('data', (chunk: Buffer) => {
        printed += chunk.toString();
      });
      /** The output as lines: on a pipe as printed, on a terminal as the screen and scrollback show it. */
      const shownLines = (): string[] => {
        if (!tty) return printed.split('\n');
        const emulator = new TerminalEmulator(80, 24);
        emulator.write(printed);
        return emulator.lines();
      };
      const surface = createConsoleSurface({
        core: observed.core,
        input,
        output,
        conversation: 'console:conformance',
      });
      await surface.start();
      let question = '';

      /** The transcript of the last question's turn, split as the terminal prints it. */
      const seen = (): SeenMessage[] => {
        const all = shownLines();
        const at = all.lastIndexOf(`${PROMPT}${question}`);
        if (!question || at < 0) return [];
        let lines = all.slice(at + 1);
        // A terminal shows the prompt again under the finished turn.
        if (tty && lines.at(-1)?.startsWith(PROMPT.trim())) lines.pop();
        while (lines.at(-1) === '') lines.pop();
        const view = observed.finalView;
        const messages: SeenMessage[] = [];
        if (view && view.steps.length > 0) {
          const end = lines.indexOf('');
          const steps = end < 0 ? lines : lines.slice(0, end);
          messages.push({ id: 'steps', kind: 'steps', text: steps.join('\n'), controls: [] });
          lines = end < 0 ? [] : lines.slice(end + 1);
        }
        let footer: string | undefined;
        if (view?.footer && lines.at(-1) === view.footer) {
          footer = lines.pop();
          while (lines.at(-1) === '') lines.pop();
        }
        if (lines.length > 0)
          messages.push({
            id: 'answer',
            kind: 'content',
            text: lines.join('\n'),
            ...(footer !== undefined ? { footer } : {}),
            controls: [],
          });
        return messages;
      };

      return {
        llm: harness.llm,
        search: harness.search,
        answerChars: TERMINAL_ANSWER_CHARS,
        rendered: (markdown) => markdownToTerminal(markdown, PLAIN),
        async ask(text) {
          question = text;
          const before = observed.started;
          input.write(`${text}${tty ? '\r' : '\n'}`);
          const deadline = Date.now() + 10_000;
          while (observed.started <= before) {
            if (Date.now() > deadline) throw new Error('the turn did not start');
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        },
        async settled() {
          await observed.settled();
          // What the pipe carries reaches the reader on a later turn of the event loop.
          await new Promise((resolve) => setImmediate(resolve));
        },
        get finalView() {
          return observed.finalView;
        },
        rewriteFinal: (rewrite) => observed.rewriteFinal(rewrite),
        messages: seen,
        // No platform: nothing is written but stdout, nothing can be over a limit or ping anyone.
        calls: () => [],
        violations: () => [],
        pings: () => [],
        privateNotices: () => [],
        async waitFor(check, what, timeoutMs = 10_000) {
          const deadline = Date.now() + timeoutMs;
          while (!check()) {
            if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        },
        async press(control) {
          throw new Error(`console: no ${control} button (a terminal has no buttons)`);
        },
        rateLimit() {
          throw new Error('console: no platform to rate-limit');
        },
        refuseConversation() {
          throw new Error('console: no platform to refuse');
        },
        failEphemeral() {
          throw new Error('console: no ephemeral replies');
        },
        async privateCommand() {
          throw new Error('console: no private replies');
        },
        async close() {
          input.end();
          await surface.stop();
          await harness.close();
        },
      };
    },
  };
}

export const consoleDriver = terminalDriver(false);
export const consoleTtyDriver = terminalDriver(true);
