/**
 * The contract of a conformance driver: one surface (its real adapter and real SDK, against the
 * strict fake of its platform on loopback, with the scripted LLM and search servers behind the real
 * core, wired as production wires it) seen the way the conformance turns need to see it.
 *
 * Adding a driver (e.g. "slack-native", "console"):
 * 1. write `<name>-driver.ts` exporting a `SurfaceDriver` whose `start` builds one world per turn:
 *    start the fake, then the core with `observedCore` (so `settled()` and `finalView` work), then
 *    the surface; `ask` sends the user's message the way the platform delivers it;
 * 2. map what the platform shows to `SeenMessage`s (`kind`, `text` as the user reads it, `controls`)
 *    and every write call to a `WriteCall` (the fake records them);
 * 3. list what the surface cannot do in `lacks` (a turn needing it is reported as skipped, by name);
 * 4. add it to `DRIVERS` in conformance.test.ts. The turns and assertions are shared; do not fork them.
 */
import type { TurnView } from '../../src/render/view.js';
import type { Locale, ScoutCore, TurnSink } from '../../src/surface.js';
import type { FakeOpenAI } from '../helpers/fake-openai-server.js';
import type { FakeSearchServer } from '../helpers/fake-search-server.js';

/** What the user can press. `details` is Show/Hide details. */
export type Control = 'stop' | 'feedback' | 'run' | 'cancel' | 'details';

/** A message of the conversation as users finally see it. */
export interface SeenMessage {
  id: string;
  /** `steps` is the live steps message; `content` is an answer or plan part (see `classify`). */
  kind: 'steps' | 'content';
  /** The Markdown the user reads (without the footer). */
  text: string;
  /** The footer line under it (statistics), when the surface shows one. */
  footer?: string;
  controls: Control[];
}

/** The platform's write methods, named the same on every surface. */
export type WriteMethod = 'post' | 'edit' | 'delete' | 'ephemeral' | 'stream';

/** One write the fake recorded (any conversation). */
export interface WriteCall {
  method: WriteMethod;
  /** The platform's own name (`chat.update`, `PATCH /channels/:channel/messages/:message`). */
  platformMethod: string;
  /** Where it went: the turn's conversation, or elsewhere (a DM, another channel). */
  inConversation: boolean;
  status: number;
  /** `Date.now()` when the fake received it. */
  at: number;
}

/** Things a surface may not offer; a turn that needs one is skipped on that surface. */
export type Capability =
  | 'plan-buttons'
  | 'stop-button'
  /** 👍/👎 on the finished answer (a terminal has no buttons). */
  | 'feedback-buttons'
  /**
   * Any earlier text can still be changed: not in a terminal, where rows that scrolled into the
   * scrollback stay as printed (a citation marker the final text drops stays there).
   */
  | 'edit-scrolled-text'
  | 'refusal'
  | 'private-replies'
  | 'failing-ephemeral'
  | 'native-stream'
  | `storm:${WriteMethod}`;

export interface WorldOptions {
  env?: Record<string, string>;
  locale?: Locale;
}

export interface SurfaceWorld {
  readonly llm: FakeOpenAI;
  readonly search: FakeSearchServer;
  /** Per-message character limit of an answer part (what the renderer splits at). */
  readonly answerChars: number;
  /**
   * What the surface shows for Markdown it is given, where that is not the Markdown itself (the
   * terminal prints `[[1]](url)` as `[1]` and `[title](url)` as `title <url>`): the messages are
   * compared with the final answer as the surface renders it, and a raw `[n]` shows as a difference.
   */
  rendered?(markdown: string): string;
  /** Sends a user's message that addresses Scout (mention / DM) in the turn's conversation. */
  ask(text: string): Promise<void>;
  /** Resolves when every turn started so far has ended and its final state is written. */
  settled(): Promise<void>;
  /** The view the core handed to the sink's `done` (the final answer the messages must show). */
  readonly finalView: TurnView | undefined;
  /**
   * From now on the core hands `done` the view `rewrite` makes of its final view: a final text that
   * rewrote what streamed (the model's own text only ever grows since citations are linked live).
   */
  rewriteFinal(rewrite: (view: TurnView) => TurnView): void;
  /** The conversation's messages as they show now, in order. */
  messages(): SeenMessage[];
  /**
   * Calls `listener` after every write the fake platform answered, when `messages()` shows the new
   * state: every state the conversation goes through is seen. Returns the function that stops it.
   * Absent where messages are not edited in place (the terminal).
   */
  watch?(listener: () => void): () => void;
  /** Every write the fake recorded, in order. */
  calls(): WriteCall[];
  /** Calls the fake refused as over a platform limit (chars, blocks, components). */
  violations(): string[];
  /** Mentions that would have pinged someone (@everyone, @here, <!channel>, roles, users). */
  pings(): string[];
  /** Texts the asker got privately (ephemeral, DM). */
  privateNotices(): string[];
  /** Waits until `check` holds (the fake's state changes with each call). */
  waitFor(check: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** Presses a control on a message as the asker. */
  press(control: Control, message: SeenMessage): Promise<void>;
  /** The next `times` calls of `method` are answered 429 (with a short retry-after). */
  rateLimit(method: WriteMethod, times: number): void;
  /** The platform refuses every write in the turn's conversation (Slack not_in_channel, Discord 403 50013). */
  refuseConversation(): void;
  /** Private replies fail (Slack postEphemeral errors); the user must never get them publicly. */
  failEphemeral(): void;
  /** Sends a command whose answer is a private reply (Slack `/scout help`). */
  privateCommand(): Promise<void>;
  close(): Promise<void>;
}

export interface SurfaceDriver {
  readonly name: string;
  readonly lacks: ReadonlySet<Capability>;
  start(options?: WorldOptions): Promise<SurfaceWorld>;
}

/**
 * The real core, observed: each `handleMessage` is tracked until it resolves (so `settled` knows
 * when turns are over on every surface), and the view passed to the sink's `done` is kept.
 */
export function observedCore(core: ScoutCore): {
  core: ScoutCore;
  settled(): Promise<void>;
  readonly finalView: TurnView | undefined;
  /** `SurfaceWorld.rewriteFinal`. */
  rewriteFinal(rewrite: (view: TurnView) => TurnView): void;
  /** How many messages the core was handed so far (a driver's `ask` waits for the next). */
  readonly started: number;
} {
  const running = new Set<Promise<void>>();
  let started = 0;
  let finalView: TurnView | undefined;
  let rewrite: ((view: TurnView) => TurnView) | undefined;
  const handleMessage = (message: Parameters<ScoutCore['handleMessage']>[0], sink: TurnSink) => {
    const done = (given: TurnView) => {
      const view = rewrite ? rewrite(given) : given;
      finalView = structuredClone(view);
      return sink.done(view);
    };
    const observed = new Proxy(sink, {
      get(target, property) {
        if (property === 'done') return done;
        const value = Reflect.get(target, property, target);
        // Sinks keep private fields: their methods must run on the sink itself.
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    started++;
    const turn = core.handleMessage(message, observed);
    running.add(turn);
    void turn.finally(() => running.delete(turn)).catch(() => undefined);
    return turn;
  };
  const wrapped = new Proxy(core, {
    get(target, property) {
      if (property === 'handleMessage') return handleMessage;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    core: wrapped,
    async settled() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
    get finalView() {
      return finalView;
    },
    rewriteFinal(next) {
      rewrite = next;
    },
    get started() {
      return started;
    },
  };
}
