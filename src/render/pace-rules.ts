/**
 * What a surface declares about its platform's write limits, and how each rule counts: the limits
 * are data (`ChannelLimits`: per write kind, windows and rates), and each rule becomes a small state
 * that remembers the writes made and says how long the next one must wait. The pacer
 * (channel-pacer.ts) queues writes and grants slots; this file only knows the arithmetic, so a
 * surface's limits and the pacing rules' states read apart from the queueing.
 *
 * - A window: "at most `max` writes in any `perMs`" (Discord's buckets).
 * - A rate: "a burst of `burst`, then one per `everyMs`" (Slack's posts), as GCRA.
 * - A write in flight counts as made now, a finished one as made when it finished: the platform
 *   counts a call when it arrives, which lies between its start and its end.
 * - Ordinary writes leave room (`reserve`) for urgent ones; a rule may hold ordinary writes only
 *   (`ordinaryOnly`).
 */
/**
 * The writes a surface makes. `stream` is a native answer stream's start / append / stop as the
 * renderer paces them; `stream-start`, `stream-append` and `stream-stop` are the same calls where an
 * adapter paces each platform method apart (Slack counts them per workspace, each in its own tier).
 */
export type WriteKind =
  | 'post'
  | 'edit'
  | 'delete'
  | 'stream'
  | 'stream-start'
  | 'stream-append'
  | 'stream-stop';

/** What every rule may say besides its numbers. */
interface PaceRuleScope {
  /**
   * The rule holds ordinary writes only; urgent ones (a first answer, a final) are held by the
   * other rules alone, and still count here. For a rule that spreads intermediate frames over a
   * platform's window: finals may use all the room that window has left.
   */
  readonly ordinaryOnly?: boolean;
  /**
   * Units of the rule ordinary writes leave free for urgent ones (default 1, where the rule has
   * more than one): finals that arrive while intermediate frames fill the platform's window still
   * go at once, as many as this.
   */
  readonly reserve?: number;
  /**
   * Units an ordinary write of a turn leaves free for each older turn still running on the pacer
   * (their finals come first: answers finish in arrival order). Where the window is busy, a later
   * turn's intermediate frames wait; where it is quiet, they go as before.
   */
  readonly perTurn?: number;
}

/** At most `max` writes in any `perMs` milliseconds (a platform's bucket). */
export interface PaceWindow extends PaceRuleScope {
  readonly max: number;
  readonly perMs: number;
}

/**
 * A burst of `burst` writes, then one per `everyMs` (a token bucket): at most `burst + ⌊T / everyMs⌋`
 * writes in any T milliseconds.
 */
export interface PaceRate extends PaceRuleScope {
  readonly burst: number;
  readonly everyMs: number;
}

export type PaceRule = PaceWindow | PaceRate;

/**
 * A surface's per-channel limits: for each write kind, rules that must all hold. A kind that is not
 * listed is not paced per channel (the platform limits it elsewhere, or not at all).
 */
export type ChannelLimits = Readonly<Partial<Record<WriteKind, readonly PaceRule[]>>>;

/** A surface without rate limits (the terminal). */
export const NO_CHANNEL_LIMITS: ChannelLimits = {};

/**
 * For a surface that declares nothing: Discord's sizes, the strictest a chat platform documents
 * (5 per 5 s for each kind), so an undeclared surface is slow rather than rate limited.
 */
export const DEFAULT_CHANNEL_LIMITS: ChannelLimits = {
  post: [{ max: 5, perMs: 5_000 }],
  edit: [{ max: 5, perMs: 5_000 }],
  delete: [{ max: 5, perMs: 5_000 }],
};

/** One rule's memory of the writes made, and how long the next one must wait. */
export interface RuleState {
  /** How long a write may not start yet: 0 now, Infinity until a write in flight ends. */
  waitMs(now: number, inFlight: number, urgent: boolean): number;
  /**
   * How many urgent writes could start at `now`, one after the other without waiting (Infinity
   * where the rule holds none): what a turn may still promise the platform's window.
   */
  room(now: number, inFlight: number): number;
  /** A write ended at `end`. */
  record(end: number): void;
  /** Nothing recorded still counts. */
  idle(now: number): boolean;
  /** `PaceRuleScope.perTurn` of the rule (0: later turns are not held for older ones). */
  readonly perTurn?: number;
}

/**
 * Ordinary writes leave `reserve` units of a rule free for the final state (one by default, where
 * the rule has more than one; never all of them).
 */
const room = (size: number, urgent: boolean, reserve = 1) =>
  urgent ? size : Math.max(Math.min(1, size), size - reserve);

/** A window: writes count from their start until `perMs` after they ended. */
function windowState({ max, perMs, reserve }: PaceWindow): RuleState {
  const ends: number[] = [];
  const prune = (now: number) => {
    let expired = 0;
    while (expired < ends.length && ends[expired]! + perMs <= now) expired++;
    if (expired > 0) ends.splice(0, expired);
  };
  return {
    waitMs(now, inFlight, urgent) {
      prune(now);
      const used = inFlight + ends.length;
      const allowed = room(max, urgent, reserve);
      if (used < allowed) return 0;
      // `used - allowed + 1` writes must leave the window; finished ones leave oldest first.
      const leaving = used - allowed + 1;
      if (leaving > ends.length) return Number.POSITIVE_INFINITY;
      return ends[leaving - 1]! + perMs - now;
    },
    room(now, inFlight) {
      prune(now);
      return Math.max(0, max - inFlight - ends.length);
    },
    record: (end) => ends.push(end),
    idle(now) {
      prune(now);
      return ends.length === 0;
    },
  };
}

/**
 * A rate, as GCRA (the token bucket's usual form): `due` is when the bucket is empty again. A write
 * in flight counts as made now, a finished one as made when it ended.
 */
function rateState({ burst, everyMs, reserve }: PaceRate): RuleState {
  let due = Number.NEGATIVE_INFINITY;
  return {
    waitMs(now, inFlight, urgent) {
      const allowed = room(burst, urgent, reserve);
      if (inFlight >= allowed) return Number.POSITIVE_INFINITY;
      const emptyAt = Math.max(due, now) + inFlight * everyMs;
      return Math.max(0, emptyAt - (allowed - 1) * everyMs - now);
    },
    room(now, inFlight) {
      // The bucket's free units now, less the writes in flight (each counts as made now).
      const used = (Math.max(due, now) - now) / everyMs + inFlight;
      return Math.max(0, Math.floor(burst - used));
    },
    record(end) {
      due = Math.max(due, end) + everyMs;
    },
    idle: (now) => due <= now,
  };
}

export function stateOf(rule: PaceRule): RuleState | undefined {
  const state =
    'max' in rule
      ? rule.max > 0 && rule.perMs > 0
        ? windowState(rule)
        : undefined
      : rule.burst > 0 && rule.everyMs > 0
        ? rateState(rule)
        : undefined;
  if (state && rule.perTurn) Object.assign(state, { perTurn: rule.perTurn });
  if (!state || !rule.ordinaryOnly) return state;
  return {
    ...state,
    waitMs: (now, inFlight, urgent) => (urgent ? 0 : state.waitMs(now, inFlight, urgent)),
    room: () => Number.POSITIVE_INFINITY,
  };
}
