/**
 * The terminal chat: the very same core as Slack and Discord (commands, modes, steps), like Hubot's
 * shell adapter. `runOnce` answers one message for scripts and returns the exit code.
 */
import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import type { TurnView } from '../../src/render/view.js';
import type { IncomingMessage, ScoutCore, Surface } from '../../src/surface.js';
import { ConsoleSink, type ConsoleOutput } from './console-sink.js';
import { joinText, phrase } from '../../src/i18n/phrase.js';
import { chatLine } from './terminal-payloads.js';
import { LineQueue } from './line-queue.js';

/** The console is one channel; its conversation survives restarts until `/reset`. */
export const CONSOLE_CHANNEL_ID = 'console:local';

export interface ConsoleOptions {
  core: ScoutCore;
  input?: NodeJS.ReadableStream;
  output?: ConsoleOutput & NodeJS.WritableStream;
  /** Conversation id (history scope); defaults to one per OS user so a restart continues it. */
  conversation?: string;
  /**
   * Called once when the chat ends (/quit, Ctrl-C twice, or end of input after the queue is done),
   * with the exit code: 0 when every question was answered, 1 otherwise (as `--once`).
   */
  onExit?: (code: number) => void;
}

function userName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'you';
  }
}

function messageFor(text: string, conversationId: string): IncomingMessage {
  return {
    channelId: CONSOLE_CHANNEL_ID,
    conversationId,
    messageId: `console:${randomUUID()}`,
    userId: `console:${userName()}`,
    userName: userName(),
    channelName: 'terminal',
    text,
  };
}

/** `--once` exit codes (README "Security" and `--help`). */
export const ONCE_EXIT = { answered: 0, failed: 1, partial: 2 } as const;

/**
 * 0: answered and saved; 1: no answer (an error, a refusal, storage down before the turn);
 * 2: an answer was shown but it is partial (cut by an error or Stop) or was not saved.
 */
export function onceExitCode(view: TurnView | undefined, repliedError: boolean): number {
  if (!view) return repliedError ? ONCE_EXIT.failed : ONCE_EXIT.answered;
  if (!view.answer) return view.error || view.cancelled ? ONCE_EXIT.failed : ONCE_EXIT.answered;
  return view.error || view.cancelled || view.notSaved ? ONCE_EXIT.partial : ONCE_EXIT.answered;
}

/** Remembers how the sink's turn ended (for the exit code). */
function trackOutcome(sink: ConsoleSink): { exitCode: () => number } {
  let final: TurnView | undefined;
  let repliedError = false;
  const done = sink.done.bind(sink);
  sink.done = async (view) => {
    final = view;
    await done(view);
  };
  const reply = sink.reply.bind(sink);
  sink.reply = async (text, options) => {
    if (options?.isError) repliedError = true;
    await reply(text, options);
  };
  return { exitCode: () => onceExitCode(final, repliedError) };
}

/**
 * Answers one message and resolves with the exit code (ONCE_EXIT). The answer goes to `output`; an
 * error goes to `errors` (stderr from the command line) so scripts can tell them apart.
 */
export async function runOnce(
  core: ScoutCore,
  text: string,
  output: ConsoleOutput,
  conversation?: string,
  errors?: ConsoleOutput,
  /** `--yes`: tool calls that change something run without asking (else they are refused). */
  approveTools = false,
): Promise<number> {
  const sink = new ConsoleSink({ write: (s) => output.write(s), isTTY: false }, undefined, core.locale, {
    ...(errors ? { errors } : {}),
    approveTools,
  });
  const outcome = trackOutcome(sink);
  await core.handleMessage(messageFor(text, conversation ?? `console:once:${randomUUID()}`), sink);
  return outcome.exitCode();
}

/**
 * readline's echo goes through this: muted while a turn draws, so keys typed ahead do not land in the
 * middle of the answer (the line is still read, queued, and shown as queued).
 */
function mutableEcho(output: ConsoleOutput & NodeJS.WritableStream): Writable & { muted: boolean } {
  const echo = Object.assign(
    new Writable({
      write(chunk, _encoding, callback) {
        if (!echo.muted) output.write(chunk.toString());
        callback();
      },
    }),
    { muted: false, isTTY: true },
  );
  Object.defineProperty(echo, 'columns', { get: () => output.columns || 80 });
  output.on?.('resize', () => echo.emit('resize'));
  return echo;
}

const PROMPT = '› ';

/**
 * The terminal chat. Every line typed or piped is queued and handled in order, commands and questions
 * alike; a line typed while an answer runs is shown as queued and handled after it. At the end of
 * piped input the queue is finished, then `onExit` gets the `--once` exit code (0 when every turn was
 * answered). Ctrl-C stops a running answer; at an idle prompt the first press says how to quit and the
 * second quits.
 */
export function createConsoleSurface(options: ConsoleOptions): Surface {
  const output = options.output ?? process.stdout;
  const input = options.input ?? process.stdin;
  const conversationId = options.conversation ?? `console:${userName()}`;
  const locale = options.core.locale;
  const terminal = Boolean((output as ConsoleOutput).isTTY);
  const queue = new LineQueue();
  let rl: ReturnType<typeof createInterface> | undefined;
  let echo: ReturnType<typeof mutableEcho> | undefined;
  /** The running turn's sink (typed-ahead notes go to it); undefined at the prompt. */
  let running: ConsoleSink | undefined;
  /** A plan confirmation waiting for a line typed at its prompt (terminal only). */
  let answerPrompt: ((line: string) => void) | undefined;
  let quitArmed = false;
  let exited = false;

  const showPrompt = (text = PROMPT) => {
    if (!rl || !echo) return;
    echo.muted = false;
    rl.setPrompt(text);
    rl.prompt(true);
  };

  /** The plan's "Run this plan?": a line typed at that prompt, or on a pipe the next line of input. */
  const ask = async (question: string, signal?: AbortSignal): Promise<string> => {
    if (!terminal) {
      output.write(question);
      const line = await queue.next(signal);
      output.write(`${line?.text ?? ''}\n`);
      // Input ended before an answer: nothing was agreed to.
      return line?.text ?? 'n';
    }
    return new Promise<string>((resolve, reject) => {
      const onAbort = () => {
        answerPrompt = undefined;
        if (echo) echo.muted = true;
        output.write('\n');
        reject(signal?.reason);
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      answerPrompt = (line) => {
        signal?.removeEventListener('abort', onAbort);
        answerPrompt = undefined;
        if (echo) echo.muted = true;
        resolve(line);
      };
      showPrompt(question);
    });
  };

  const onLine = (line: string) => {
    quitArmed = false;
    if (answerPrompt) return answerPrompt(line);
    // Echo is muted from the moment a turn starts until the prompt is back: such a line was not echoed.
    const typedAhead = Boolean(echo?.muted);
    queue.push({ text: line, typedAhead });
    if (typedAhead && line.trim()) running?.note(joinText([phrase('console.queued'), line.trim()]));
  };

  const onInterrupt = () => {
    // Ctrl-C stops the running answer (or withdraws the plan question); typed-ahead lines stay queued.
    if (running) {
      options.core.cancel(conversationId);
      return;
    }
    if (rl && rl.line.length > 0) {
      // Like a shell: Ctrl-C on a half-typed line clears it.
      output.write('\n');
      rl.write(null, { ctrl: true, name: 'u' });
      showPrompt();
      return;
    }
    if (quitArmed) {
      output.write('\n');
      queue.end();
      return;
    }
    quitArmed = true;
    output.write(`\n${chatLine(locale, 'quit-hint')}\n`);
    showPrompt();
  };

  /** Handles one line; resolves false when it was a question that ended without an answer. */
  const handle = async (text: string): Promise<boolean> => {
    const sink = new ConsoleSink(output, ask, locale);
    const outcome = trackOutcome(sink);
    running = sink;
    if (echo) echo.muted = true;
    try {
      sink.begin();
      await options.core.handleMessage(messageFor(text, conversationId), sink);
    } finally {
      running = undefined;
      sink.end();
    }
    return outcome.exitCode() !== ONCE_EXIT.failed;
  };

  const loop = async () => {
    let failures = 0;
    for (;;) {
      if (terminal && queue.size === 0) showPrompt();
      const line = await queue.next();
      if (!line) break;
      const text = line.text.trim();
      if (!text) continue;
      // The transcript shows each line above its reply: a pipe echoes nothing, a typed-ahead line was
      // only shown as queued.
      if (!terminal || line.typedAhead) output.write(`${PROMPT}${text}\n`);
      if (text === '/quit' || text === '/exit') break;
      if (!(await handle(text))) failures += 1;
    }
    finish(failures > 0 ? 1 : 0);
  };

  const finish = (code: number) => {
    if (exited) return;
    exited = true;
    queue.end();
    rl?.close();
    options.onExit?.(code);
  };

  return {
    name: 'console',
    async start() {
      if (terminal) {
        echo = mutableEcho(output);
        rl = createInterface({ input, output: echo, terminal: true });
        output.write(`${chatLine(locale, 'banner')}\n\n`);
        rl.on('SIGINT', onInterrupt);
      } else {
        // Not a terminal: readline only splits lines; everything printed is our own plain text.
        rl = createInterface({ input, terminal: false });
      }
      rl.on('line', onLine);
      // End of input (a pipe's EOF, Ctrl-D): the queued lines are still answered, then the loop exits.
      rl.on('close', () => queue.end());
      void loop();
    },
    async stop() {
      queue.end();
      rl?.close();
    },
  };
}
