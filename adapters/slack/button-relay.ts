/**
 * Stop and plan Run / Cancel across instances. With several instances (HTTP mode behind a load
 * balancer, or Socket Mode with several sockets) a button press reaches whichever instance Slack
 * picks, while the turn it is meant for runs on one instance only — before this relay, half of the
 * presses did nothing, and an unanswered plan held its conversation lock for ever.
 *
 * The instance running a turn marks the conversation as running in the store and polls for presses;
 * an instance that gets a press for a turn it does not run leaves it there. Only on a shared (Redis)
 * store: a single instance handles every press locally and never polls.
 *
 * It also remembers who asked each running turn (locally, and in the running mark): Stop and the
 * plan's buttons are for that person or an admin only, and the instance that got the press checks.
 */
import type Keyv from 'keyv';
import type { Logger } from '../../src/logger.js';
import type { TurnSink } from '../../src/surface.js';

/** A relayed press takes effect within about this long (one store read per running turn per poll). */
const POLL_MS = 250;
/** The running mark outlives a crashed instance by at most this long; refreshed well before. */
const RUNNING_TTL_MS = 5_000;
const RUNNING_REFRESH_MS = 2_000;
/** A press not picked up within this long (its turn just ended) is dropped, never applied to a later turn. */
const PRESS_TTL_MS = 10_000;

export type Press = 'stop' | 'run' | 'cancel';
/** What became of a press for a turn not running here. */
export type PressOutcome = 'relayed' | 'none' | 'forbidden';

/** Who may press a running turn's buttons: the person who asked, or an admin. */
export function mayPress(presser: string, asker: string, admins: readonly string[]): boolean {
  return presser === asker || admins.includes(presser);
}

export interface PressHandlers {
  stop(): void;
  /** Answers a waiting plan; false when none waits here. */
  plan(run: boolean): boolean;
}

const runningKey = (conversation: string) => `slack:running:${conversation}`;
const pressKey = (conversation: string) => `slack:press:${conversation}`;

export class ButtonRelay {
  /** The asker of each turn running in this process, from its first update to its end. */
  readonly #askers = new Map<string, { asker: string }>();

  constructor(
    private readonly meta: Keyv,
    private readonly logger: Logger,
    /** False on a single-instance store: nothing is marked, polled or relayed. */
    private readonly shared: boolean,
    /** ADMIN_USERS: they may press any turn's buttons. */
    private readonly admins: readonly string[] = [],
  ) {}

  /** The user whose message started the turn running here in this conversation, if one runs. */
  askerOf(conversation: string): string | undefined {
    return this.#askers.get(conversation)?.asker;
  }

  /** Whether `presser` may press the buttons of a turn asked by `asker`. */
  allows(presser: string, asker: string): boolean {
    return mayPress(presser, asker, this.admins);
  }

  /**
   * Handles a Stop / Run / Cancel press: a turn running here is checked here and `apply` acts on it
   * ('done', or 'none' when there was nothing to act on); a turn not running here may run on another
   * instance, so the press is relayed (see `press`).
   */
  async handle(
    conversation: string,
    press: Press,
    presser: string,
    apply: () => boolean,
  ): Promise<PressOutcome | 'done'> {
    const asker = this.askerOf(conversation);
    if (asker === undefined) return this.press(conversation, press, presser);
    if (!this.allows(presser, asker)) return 'forbidden';
    return apply() ? 'done' : 'none';
  }

  /**
   * Called by an instance that got a press for a turn it does not run: leaves the press for the
   * instance that runs it — 'relayed' when a turn of this conversation runs somewhere, 'forbidden'
   * when it runs for someone else and the presser is no admin (nothing is relayed), else 'none'.
   */
  async press(conversation: string, press: Press, presser: string): Promise<PressOutcome> {
    if (!this.shared) return 'none';
    try {
      const mark: unknown = await this.meta.get(runningKey(conversation));
      // `true` is the mark of an instance from before askers were recorded (a rolling deploy).
      if (mark !== true && typeof mark !== 'string') return 'none';
      if (typeof mark === 'string' && !this.allows(presser, mark)) return 'forbidden';
      await this.meta.set(pressKey(conversation), press, PRESS_TTL_MS);
      return 'relayed';
    } catch (err) {
      this.logger.warn({ err: String(err), conversation }, 'button press relay failed');
      return 'none';
    }
  }

  /**
   * Wraps a turn's sink: from the turn's first update (it holds the conversation lock by then) until
   * it ends, the conversation is marked running here and relayed presses are applied. `stop()` ends
   * the watch (also when no turn ran: a command, a duplicate).
   */
  watch(
    conversation: string,
    asker: string,
    sink: TurnSink,
    handlers: PressHandlers,
  ): { sink: TurnSink; stop(): void } {
    const entry = { asker };
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    let markedAt = 0;
    const poll = async () => {
      try {
        if (Date.now() - markedAt >= RUNNING_REFRESH_MS) {
          markedAt = Date.now();
          await this.meta.set(runningKey(conversation), asker, RUNNING_TTL_MS);
        }
        const press = (await this.meta.get(pressKey(conversation))) as Press | undefined;
        if (press && !stopped) {
          await this.meta.delete(pressKey(conversation));
          if (press === 'stop') handlers.stop();
          else if (!handlers.plan(press === 'run')) this.logger.debug({ conversation }, 'no plan waiting');
        }
      } catch (err) {
        this.logger.debug({ err: String(err), conversation }, 'button relay poll failed');
      }
      if (!stopped) timer = setTimeout(() => void poll(), POLL_MS);
    };
    let begun = false;
    const begin = () => {
      if (begun || stopped) return;
      begun = true;
      this.#askers.set(conversation, entry);
      if (!this.shared) return;
      // A press left over from an earlier turn of this conversation is not for this one.
      timer = setTimeout(() => void poll(), 0);
      void this.meta.delete(pressKey(conversation)).catch(() => undefined);
    };
    const stop = () => {
      if (stopped) return;
      stopped = true;
      // Only this turn's entry: the next turn of the conversation may have begun already.
      if (this.#askers.get(conversation) === entry) this.#askers.delete(conversation);
      clearTimeout(timer);
      if (markedAt > 0) void this.meta.delete(runningKey(conversation)).catch(() => undefined);
    };
    const watched: TurnSink = {
      update: (view) => {
        begin();
        sink.update(view);
      },
      done: async (view) => {
        stop();
        await sink.done(view);
      },
      reply: (text) => sink.reply(text),
    };
    if (sink.confirmPlan) {
      const confirm = sink.confirmPlan.bind(sink);
      watched.confirmPlan = (plan, signal) => {
        begin();
        return confirm(plan, signal);
      };
    }
    if (sink.confirmTool) {
      const confirm = sink.confirmTool.bind(sink);
      watched.confirmTool = (request, signal) => {
        begin();
        return confirm(request, signal);
      };
    }
    return { sink: watched, stop };
  }
}
