/**
 * The one place per-channel pacing lives. Platforms limit writes per channel, not per message
 * (Discord: about 5 messages per 5 s per channel, edits in per-route buckets of the same size; Slack:
 * chat.postMessage about 1 per second per channel with short bursts), so every write of every turn
 * in a channel takes a slot from that channel's pacer first. Per-message pacing (one edit per
 * interval, coalescing) stays in throttled-editor.ts; this file only says *when* the channel has
 * room for the next write.
 *
 * - Limits are the surface's declaration (`ChannelLimits`, pace-rules.ts): per write kind, rules
 *   that must all hold (windows and rates); how each rule counts the writes made lives there, and
 *   this file queues the writes and grants their slots.
 * - Writes wait, never fail or drop: pacing delays, the delivery policy (delivery.ts) decides
 *   retries. Waiting writes go first come first served, except urgent ones (a turn's first answer
 *   text and its final state): they go before ordinary ones, and ordinary writes leave one slot of
 *   each rule (or its `reserve`) free for them, so a turn's closing write does not wait behind a
 *   stream of intermediate frames; a rule may also hold ordinary writes only (`ordinaryOnly`). Urgent writes go by turn: those of the turn that asked urgently first go
 *   first (in the order they became urgent), so when many turns finish at once each one's
 *   messages turn final together and one after the other, rather than every turn's a little at
 *   a time and all at the very end. A turn is one `channel()` pace (one per turn renderer).
 * - A slot is taken before the payload is read (throttled-editor.ts), so whatever changed while a
 *   write waited goes out in that one write.
 * - Pacers are kept per channel key while they have writes to remember, and then forgotten, so
 *   memory follows the channels active in the last window, not every channel ever written to.
 * - Some kinds are limited in a wider scope than the channel (Slack counts chat.update and
 *   chat.delete per workspace and method: Tier 3, about 50 a minute): `scopedPace` sends those kinds
 *   to a pacer keyed by that scope, shared by every turn in it. The same rules then hold there, so a
 *   busy workspace's intermediate frames wait (coalesced, one per message) while finals go first.
 * - Several instances share what the platform counts for all of them (`SharedPacing`, with a store
 *   that several instances share: pace-budget.ts): a lane whose local rules allow its next write
 *   then asks the shared budget for a unit of the shared windows, one question at a time, and
 *   grants the unit to whichever write heads its queue when the answer comes (urgent ones first).
 */
import { type EditorClock, systemClock } from './editor-clock.js';
import type { SharedPaceBudget, SharedUnit } from './pace-budget.js';
import {
  type ChannelLimits,
  type PaceRule,
  type PaceWindow,
  type RuleState,
  stateOf,
  type WriteKind,
} from './pace-rules.js';

/** A granted write: `done` once the call settled (it counts from then on), `cancel` if it never ran. */
export interface PaceSlot {
  done(): void;
  cancel(): void;
}

/** A write waiting for a slot. */
export interface PaceRequest {
  readonly slot: Promise<PaceSlot>;
  /** The write became urgent (the final state now waits on it): it goes before ordinary ones. */
  hurry(): void;
  /** The write is no longer wanted: leave the queue (the slot resolves as one that never counts). */
  withdraw(): void;
}

/** Where one channel's writes are paced; `pacer` of `ChannelPacers`, or a turn's own. */
export interface ChannelPace {
  acquire(kind: WriteKind, urgent?: boolean): PaceRequest;
  /** Runs one write in a slot of its kind. */
  run<T>(kind: WriteKind, call: () => Promise<T>, urgent?: boolean): Promise<T>;
  /**
   * The turn's answer is complete and its final state is being written: from now until `end`, later
   * turns leave it room (`perTurn`), so it finishes before them; its writes still waiting become
   * urgent (its final state waits on them).
   */
  finishing?(): void;
  /** The turn wrote its final state: later turns no longer leave room for it (`perTurn`). */
  end?(): void;
}

const FREE_SLOT: PaceSlot = { done: () => {}, cancel: () => {} };
const FREE: PaceRequest = { slot: Promise.resolve(FREE_SLOT), hurry: () => {}, withdraw: () => {} };

/**
 * A request made only once `ready` settled (a message that must wait for the one before it): it
 * holds no slot while it waits, so it never keeps the message it waits for from getting one.
 */
export function requestAfter(
  ready: Promise<unknown>,
  request: (urgent: boolean) => PaceRequest,
  urgent: boolean,
): PaceRequest {
  let inner: PaceRequest | undefined;
  let withdrawn = false;
  return {
    slot: ready
      .catch(() => undefined)
      .then(() => {
        if (withdrawn) return FREE_SLOT;
        inner = request(urgent);
        return inner.slot;
      }),
    hurry: () => {
      urgent = true;
      inner?.hurry();
    },
    withdraw: () => {
      withdrawn = true;
      inner?.withdraw();
    },
  };
}

/**
 * Runs `call` in a granted slot (or a unit of a shared budget): it counts from when the call
 * settled, whether the call succeeded or not.
 */
export async function inGrant<T>(grant: { done(): void }, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } finally {
    grant.done();
  }
}

/** Runs `call` once `request`'s slot is granted (see inGrant). */
async function inSlot<T>(request: PaceRequest, call: () => Promise<T>): Promise<T> {
  return inGrant(await request.slot, call);
}

interface Waiter {
  grant: (slot: PaceSlot) => void;
  /** Among urgent writes, lower goes first: when the write's turn first asked urgently. */
  rank: number;
  /** How many older turns this write leaves room for (`perTurn`); `urgent`: the write is a final. */
  older: (urgent: boolean) => number;
}

/** A turn as a pacer knows it: in arrival order, running until it ended (or went quiet long). */
export interface PaceTurn {
  readonly order: number;
  /**
   * Its answer is complete and its final state under way. Only such turns hold later ones back: a
   * turn whose model still streams must not hold every later turn (50 answers at once would then
   * go one window's share at a time, as if queued).
   */
  finishing?: boolean;
  ended: boolean;
  lastUse: number;
}

/** A turn that wrote nothing for this long no longer counts as running (a turn that never ended). */
const TURN_QUIET_MS = 120_000;

/** When a write's turn first asked for an urgent slot (asked when the write becomes urgent). */
type Rank = () => number;

function remove<T>(list: T[], item: T): boolean {
  const index = list.indexOf(item);
  if (index === -1) return false;
  list.splice(index, 1);
  return true;
}

/** Where a lane takes a unit of the windows it shares with other instances before each write. */
export interface LaneGate {
  readonly budget: SharedPaceBudget;
  readonly key: string;
  readonly windows: readonly PaceWindow[];
}

/**
 * What a surface's pacers share with other instances: `key` names the budget of a channel key's
 * kind of write (undefined: not shared), `windows` what is counted there (default: the lane's own
 * windows, so the instances together keep to what each would alone).
 */
export interface SharedPacing {
  readonly budget: SharedPaceBudget;
  key(channel: string, kind: WriteKind): string | undefined;
  readonly windows?: readonly PaceWindow[];
}

/** One channel's writes of one kind. */
class Lane {
  #inFlight = 0;
  /** A question to the shared budget is under way (one at a time). */
  #asking = false;
  /** Waiting writes: urgent ones (by rank, then in the order they became urgent) before ordinary ones. */
  readonly #urgent: Waiter[] = [];
  readonly #ordinary: Waiter[] = [];
  #timer: unknown;
  #timerAt = Number.POSITIVE_INFINITY;

  constructor(
    private readonly rules: readonly RuleState[],
    private readonly clock: EditorClock,
    private readonly gate?: LaneGate,
  ) {}

  get idle(): boolean {
    const now = this.clock.now();
    return (
      this.#inFlight === 0 &&
      !this.#asking &&
      this.#urgent.length === 0 &&
      this.#ordinary.length === 0 &&
      this.rules.every((r) => r.idle(now))
    );
  }

  /** Urgent writes that could start now, after those already waiting (see ChannelPacer.room). */
  room(): number {
    const now = this.clock.now();
    const free = Math.min(...this.rules.map((r) => r.room(now, this.#inFlight)));
    return Math.max(0, free - this.#urgent.length);
  }

  acquire(urgent: boolean, rank: Rank, older: (urgent: boolean) => number = () => 0): PaceRequest {
    const waiter: Waiter = { grant: () => {}, rank: 0, older };
    const slot = new Promise<PaceSlot>((resolve) => {
      waiter.grant = resolve;
    });
    if (urgent) this.#queueUrgent(waiter, rank());
    else this.#ordinary.push(waiter);
    this.#pump();
    return {
      slot,
      hurry: () => {
        if (!remove(this.#ordinary, waiter)) return;
        this.#queueUrgent(waiter, rank());
        this.#pump();
      },
      withdraw: () => {
        if (!remove(this.#urgent, waiter) && !remove(this.#ordinary, waiter)) return;
        waiter.grant(FREE_SLOT);
        this.#pump();
      },
    };
  }

  /** After every urgent write of an earlier or the same rank: a turn's writes keep their order. */
  #queueUrgent(waiter: Waiter, rank: number): void {
    waiter.rank = rank;
    const after = this.#urgent.findIndex((w) => w.rank > rank);
    if (after === -1) this.#urgent.push(waiter);
    else this.#urgent.splice(after, 0, waiter);
  }

  #pump(): void {
    for (;;) {
      const now = this.clock.now();
      const next = this.#next(now);
      if (!next) return;
      if (next.wait > 0) {
        if (Number.isFinite(next.wait)) this.#wake(now + next.wait);
        return; // otherwise a write in flight (or an older turn) ends first and pumps again
      }
      if (this.gate) {
        this.#ask(this.gate, next.urgent, next.waiter);
        return; // the answer grants the head of the queue, then pumps again
      }
      remove(next.urgent ? this.#urgent : this.#ordinary, next.waiter);
      this.#inFlight++;
      next.waiter.grant(this.#slot());
    }
  }

  /**
   * The write that goes next and how long it must wait: the first urgent one, else the first
   * ordinary one whose turn may write now (a later turn leaves `perTurn` units of a rule to each
   * older turn still running).
   */
  #next(now: number): { waiter: Waiter; urgent: boolean; wait: number } | undefined {
    // Urgent writes first (by turn arrival), then ordinary ones; in both, a later turn leaves
    // `perTurn` units of a rule to each older turn still running, so the oldest answers finish first.
    for (const urgent of [true, false]) {
      const queue = urgent ? this.#urgent : this.#ordinary;
      let soonest: { waiter: Waiter; urgent: boolean; wait: number } | undefined;
      let lastOlder = -1;
      for (const waiter of queue) {
        const older = this.#held ? waiter.older(urgent) : 0;
        // Waiters whose turns leave the same room wait the same: look at the first of them only.
        if (older === lastOlder) continue;
        lastOlder = older;
        const wait = Math.max(
          ...this.rules.map((r) => r.waitMs(now, this.#inFlight + (r.perTurn ?? 0) * older, urgent)),
        );
        if (wait <= 0) return { waiter, urgent, wait };
        if (!soonest || wait < soonest.wait) soonest = { waiter, urgent, wait };
        if (!this.#held) break;
      }
      if (soonest) return soonest;
    }
    return undefined;
  }

  /** Some rule leaves room to older turns. */
  get #held(): boolean {
    return this.rules.some((r) => (r.perTurn ?? 0) > 0);
  }

  /** An older turn ended: a later one may write now. */
  pump(): void {
    this.#pump();
  }

  /** Asks the shared budget for a unit; grants it to the head of the queue, urgent ones first. */
  #ask(gate: LaneGate, urgent: boolean, chosen: Waiter): void {
    if (this.#asking) return;
    this.#asking = true;
    const answered = (unit: SharedUnit | undefined, waitMs: number) => {
      this.#asking = false;
      if (!unit) {
        this.#wake(this.clock.now() + waitMs);
        return;
      }
      const next =
        (remove(this.#urgent, chosen) ? chosen : undefined) ??
        this.#urgent.shift() ??
        (remove(this.#ordinary, chosen) ? chosen : undefined) ??
        this.#ordinary.shift();
      if (!next) {
        unit.cancel(); // withdrawn meanwhile
        return;
      }
      this.#inFlight++;
      next.grant(this.#slot(unit));
      this.#pump();
    };
    gate.budget.take(gate.key, gate.windows, urgent).then(
      (answer) => ('unit' in answer ? answered(answer.unit, 0) : answered(undefined, answer.waitMs)),
      // A budget that cannot answer never holds a write: the local rules alone pace it.
      () => answered(FREE_SLOT, 0),
    );
  }

  #slot(unit?: SharedUnit): PaceSlot {
    let open = true;
    const close = (ran: boolean) => {
      if (!open) return;
      open = false;
      this.#inFlight--;
      if (ran) unit?.done();
      else unit?.cancel();
      if (ran) {
        const end = this.clock.now();
        for (const rule of this.rules) rule.record(end);
      }
      this.#pump();
    };
    return { done: () => close(true), cancel: () => close(false) };
  }

  #wake(at: number): void {
    if (this.#timer !== undefined && this.#timerAt <= at) return;
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = this.clock.setTimeout(
      () => {
        this.#timer = undefined;
        this.#timerAt = Number.POSITIVE_INFINITY;
        this.#pump();
      },
      Math.max(0, at - this.clock.now()),
    );
  }
}

/** One channel's pacer: a lane per write kind that the limits name. */
export class ChannelPacer implements ChannelPace {
  readonly #lanes = new Map<WriteKind, Lane>();
  /** The turns that wrote here, oldest first, until they ended. */
  #turns: PaceTurn[] = [];

  constructor(
    private readonly limits: ChannelLimits,
    private readonly clock: EditorClock,
    /** Where this channel's lanes take units of what they share with other instances. */
    private readonly shared?: { readonly pacing: SharedPacing; readonly channel: string },
  ) {}

  /** Nothing in flight, waiting, or still counting: forgetting this pacer loses nothing. */
  get idle(): boolean {
    for (const lane of this.#lanes.values()) if (!lane.idle) return false;
    return true;
  }

  /**
   * A slot for one write. `rank` orders urgent writes (lower first; default: when it became
   * urgent, which is first come first served); a turn's pace passes when the turn first asked.
   */
  acquire(
    kind: WriteKind,
    urgent = false,
    rank: Rank = () => this.clock.now(),
    turn?: PaceTurn,
  ): PaceRequest {
    const lane = this.#lane(kind);
    if (!lane) return FREE;
    if (!turn) return lane.acquire(urgent, rank);
    this.join(turn);
    return lane.acquire(urgent, rank, (final) => this.#older(turn, final));
  }

  /** A turn arrived (or wrote again): it runs here until it ended. */
  join(turn: PaceTurn): void {
    turn.lastUse = this.clock.now();
    if (turn.ended || this.#turns.includes(turn)) return;
    const at = this.#turns.findIndex((t) => t.order > turn.order);
    if (at === -1) this.#turns.push(turn);
    else this.#turns.splice(at, 0, turn);
  }

  /**
   * How many older turns a write of `turn` leaves room for: for its final state, every older turn
   * still running here (answers complete in arrival order); for an intermediate frame, only older
   * turns already writing their final state (a turn still streaming must not hold every later one's
   * frames: 50 answers at once would go one window's share at a time).
   */
  #older(turn: PaceTurn, final: boolean): number {
    const now = this.clock.now();
    this.#turns = this.#turns.filter((t) => !t.ended && now - t.lastUse < TURN_QUIET_MS);
    let older = 0;
    for (const t of this.#turns) if (t.order < turn.order && (final || t.finishing)) older++;
    return older;
  }

  /** A turn ended: writes of later turns held for it may go. */
  ended(turn: PaceTurn): void {
    turn.ended = true;
    const at = this.#turns.indexOf(turn);
    if (at === -1) return;
    this.#turns.splice(at, 1);
    for (const lane of this.#lanes.values()) lane.pump();
  }

  /**
   * How many urgent writes of `kind` the channel's window still allows now, after the urgent ones
   * already waiting (Infinity for a kind it does not pace). Not a reservation: for a caller that
   * plans writes ahead (nothing in the renderer asks it since the stream's stop hint stopped costing
   * an edit).
   */
  room(kind: WriteKind): number {
    return this.#lane(kind)?.room() ?? Number.POSITIVE_INFINITY;
  }

  async run<T>(
    kind: WriteKind,
    call: () => Promise<T>,
    urgent = false,
    rank?: Rank,
    turn?: PaceTurn,
  ): Promise<T> {
    return inSlot(this.acquire(kind, urgent, rank, turn), call);
  }

  #lane(kind: WriteKind): Lane | undefined {
    let lane = this.#lanes.get(kind);
    if (lane) return lane;
    const declared = this.limits[kind] ?? [];
    const rules = declared.flatMap((rule) => stateOf(rule) ?? []);
    if (rules.length === 0) return undefined;
    lane = new Lane(rules, this.clock, this.#gate(kind, declared));
    this.#lanes.set(kind, lane);
    return lane;
  }

  #gate(kind: WriteKind, declared: readonly PaceRule[]): LaneGate | undefined {
    if (!this.shared) return undefined;
    const { pacing, channel } = this.shared;
    const key = pacing.key(channel, kind);
    const windows = pacing.windows ?? declared.filter((r): r is PaceWindow => 'max' in r && !r.ordinaryOnly);
    if (key === undefined || windows.length === 0) return undefined;
    return { budget: pacing.budget, key, windows };
  }
}

/**
 * A turn's pace where some write kinds are limited in a wider scope than its channel (Slack: edits
 * and deletes per workspace). A kind named in `wider` takes its slot there only; the others from
 * `channel`. (Slack limits those kinds per workspace and not per channel, so one slot is enough.)
 */
export function scopedPace(
  channel: ChannelPace,
  wider: Readonly<Partial<Record<WriteKind, ChannelPace>>>,
): ChannelPace {
  const paceOf = (kind: WriteKind) => wider[kind] ?? channel;
  const all = new Set<ChannelPace>([channel, ...Object.values(wider).filter((p) => p !== undefined)]);
  return {
    acquire: (kind, urgent) => paceOf(kind).acquire(kind, urgent),
    run: (kind, call, urgent) => paceOf(kind).run(kind, call, urgent),
    finishing: () => {
      for (const pace of all) pace.finishing?.();
    },
    end: () => {
      for (const pace of all) pace.end?.();
    },
  };
}

/** How often idle pacers are looked for (on the next use after this long). */
const SWEEP_MS = 60_000;

/**
 * The pacers of a surface's channels, by channel key (Slack: the channel, whose threads share its
 * limit; Discord: the channel or thread id). Concurrent turns in one channel share one pacer.
 */
export class ChannelPacers {
  readonly #pacers = new Map<string, ChannelPacer>();
  readonly #clock: EditorClock;
  readonly #shared: SharedPacing | undefined;
  #sweptAt: number;
  /** Turns given a pace so far (their arrival order). */
  #turnCount = 0;

  /** `shared`: what these pacers share with other instances (a store several of them use). */
  constructor(clock: EditorClock = systemClock, shared?: SharedPacing) {
    this.#clock = clock;
    this.#shared = shared;
    this.#sweptAt = clock.now();
  }

  /** Channels with a pacer now (idle ones are forgotten on a later use). */
  get size(): number {
    return this.#pacers.size;
  }

  /**
   * The pace of one channel under the surface's `limits` (a surface passes the same limits for a
   * key every time), for one turn: ask once per turn, so its urgent writes are ranked together. The pacer is looked up on every write, so one forgotten while idle is simply
   * made again: a turn never holds on to a pacer that other turns no longer share.
   */
  channel(key: string, limits: ChannelLimits): ChannelPace {
    // This pace is one turn's: its urgent writes rank by when it arrived (answers finish in
    // arrival order), and ties among turns that arrived in the same millisecond by their order.
    this.#turnCount += 1;
    const turn: PaceTurn = { order: this.#turnCount, ended: false, lastUse: this.#clock.now() };
    const arrived = this.#clock.now() + (this.#turnCount % 1000) / 1000_000;
    const rank = () => arrived;
    this.#pacer(key, limits).join(turn);
    // Writes of this turn still waiting for a slot: once the turn is finishing, each of them stands
    // between its answer and the final state (a stream's last append before its stop), so they all
    // become urgent — ranked with the turn, before later turns' frames.
    const waiting = new Set<PaceRequest>();
    const acquire = (kind: WriteKind, urgent = false): PaceRequest => {
      const request = this.#pacer(key, limits).acquire(kind, urgent || turn.finishing === true, rank, turn);
      if (!urgent && !turn.finishing) {
        waiting.add(request);
        void request.slot.then(() => waiting.delete(request));
      }
      return request;
    };
    return {
      acquire,
      run: (kind, call, urgent) => inSlot(acquire(kind, urgent), call),
      finishing: () => {
        turn.finishing = true;
        for (const request of waiting) request.hurry();
        waiting.clear();
      },
      end: () => {
        if (turn.ended) return;
        const pacer = this.#pacers.get(key);
        if (pacer) pacer.ended(turn);
        else turn.ended = true;
      },
    };
  }

  /** `ChannelPacer.room` of the channel `key` under `limits`. */
  room(key: string, limits: ChannelLimits, kind: WriteKind): number {
    return this.#pacer(key, limits).room(kind);
  }

  #pacer(key: string, limits: ChannelLimits): ChannelPacer {
    this.#sweep();
    let pacer = this.#pacers.get(key);
    if (!pacer) {
      pacer = new ChannelPacer(
        limits,
        this.#clock,
        this.#shared ? { pacing: this.#shared, channel: key } : undefined,
      );
      this.#pacers.set(key, pacer);
    }
    return pacer;
  }

  #sweep(): void {
    const now = this.#clock.now();
    if (now - this.#sweptAt < SWEEP_MS) return;
    this.#sweptAt = now;
    for (const [key, pacer] of this.#pacers) if (pacer.idle) this.#pacers.delete(key);
  }
}
