/**
 * The terminal chat: the very same core as Slack and Discord (commands, modes, steps), like Hubot's
 * shell adapter. `runOnce` answers one message for scripts and returns the exit code.
 */
import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { createInterface } from 'node:readline/promises';
import type { IncomingMessage, ScoutCore, Surface } from '../../src/surface.js';
import { ConsoleSink, type ConsoleOutput } from './console-sink.js';
import { t } from '../../src/i18n/translate.js';

/** The console is one channel; its conversation survives restarts until `/reset`. */
export const CONSOLE_CHANNEL_ID = 'console:local';

export interface ConsoleOptions {
  core: ScoutCore;
  input?: NodeJS.ReadableStream;
  output?: ConsoleOutput & NodeJS.WritableStream;
  /** Conversation id (history scope); defaults to one per OS user so a restart continues it. */
  conversation?: string;
  /** Called when the user quits (Ctrl-D, /quit). */
  onExit?: () => void;
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

/** Answers one message and resolves with the exit code: 0 on an answer, 1 on an error. */
export async function runOnce(
  core: ScoutCore,
  text: string,
  output: ConsoleOutput,
  conversation?: string,
): Promise<number> {
  const sink = new ConsoleSink({ write: (s) => output.write(s), isTTY: false }, undefined, core.locale);
  let failed = false;
  const done = sink.done.bind(sink);
  sink.done = async (view) => {
    failed = Boolean(view.error) && !view.answer;
    await done(view);
  };
  await core.handleMessage(messageFor(text, conversation ?? `console:once:${randomUUID()}`), sink);
  return failed ? 1 : 0;
}

export function createConsoleSurface(options: ConsoleOptions): Surface {
  const output = options.output ?? process.stdout;
  const input = options.input ?? process.stdin;
  const conversationId = options.conversation ?? `console:${userName()}`;
  let rl: ReturnType<typeof createInterface> | undefined;
  let current: Promise<void> | undefined;

  return {
    name: 'console',
    async start() {
      rl = createInterface({ input, output, terminal: Boolean((output as ConsoleOutput).isTTY) });
      const ask = (question: string, signal?: AbortSignal) =>
        rl ? rl.question(question, signal ? { signal } : {}) : Promise.resolve('y');
      output.write(`${t(options.core.locale, 'console.banner')}\n\n`);
      rl.on('SIGINT', () => {
        // Ctrl-C stops the running answer; a second one on an idle prompt quits.
        if (current && options.core.cancel(conversationId)) return;
        rl?.close();
      });
      rl.on('close', () => options.onExit?.());
      void (async () => {
        if (!rl) return;
        try {
          while (true) {
            const line = (await rl.question('› ')).trim();
            if (line === '/quit' || line === '/exit') break;
            if (!line) continue;
            current = options.core.handleMessage(
              messageFor(line, conversationId),
              new ConsoleSink(output, ask, options.core.locale),
            );
            await current;
            current = undefined;
          }
        } catch {
          // readline rejects pending questions on close: that is the normal way out.
        }
        rl?.close();
      })();
    },
    async stop() {
      rl?.close();
    },
  };
}
