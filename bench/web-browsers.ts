import { fileURLToPath } from 'node:url';
import { forkRpc } from './child-rpc.js';

const CHILD_ENTRY = fileURLToPath(new URL('./web-browsers-process.ts', import.meta.url));

export interface BrowserTurn {
  tag: string;
  done: boolean;
  answerChars: number;
  /** The answer's last characters (the fake's END_MARKER proves the whole answer arrived). */
  answerEnd: string;
  error?: string;
}

export interface Browsers {
  /** `count` new users, each with a new conversation (no stream yet; earlier sessions are dropped). */
  prepare(origin: string, count: number): Promise<void>;
  /** Opens every session's event stream; resolves once each has its snapshot. */
  connect(): Promise<void>;
  /** Every session sends `<prefix>-<i> <question>` at once; resolves once each POST was answered. */
  send(prefix: string, question: string): Promise<void>;
  /** Resolves when every session's turn has ended (or after `timeoutMs`), with how each ended. */
  wait(timeoutMs: number): Promise<BrowserTurn[]>;
  /** Per turn tag, the events that changed its answer: [epoch ms received, answer length]; then forgets them. */
  observations(): Promise<Record<string, Array<[number, number]>>>;
  /** Closes every event stream. */
  disconnect(): Promise<void>;
  close(): Promise<void>;
}

export async function startBrowsers(): Promise<Browsers> {
  const { child, call, exited } = forkRpc(CHILD_ENTRY, 'browsers');
  return {
    prepare: (origin, count) => call('prepare', { origin, count }),
    connect: () => call('connect'),
    send: (prefix, question) => call('send', { prefix, question }),
    wait: (timeoutMs) => call('wait', { timeoutMs }),
    observations: () => call('observations'),
    disconnect: () => call('disconnect'),
    async close() {
      if (child.exitCode === null) await call('close').catch(() => undefined);
      await exited;
    },
  };
}
