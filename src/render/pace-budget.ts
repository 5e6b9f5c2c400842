/**
 * A pacing budget shared by several Scout instances (issue 58, item 3). Each instance paces its own
 * writes (channel-pacer.ts), but a platform counts some limits for everyone who writes with the same
 * token: Slack's Tier 3 chat.update per workspace, its stream methods per workspace, Discord's 50
 * requests a second per bot. With several instances on one store, each instance's lane asks the
 * shared budget for a unit of those windows before it grants a slot, so all of them together stay
 * within the platform's one window.
 *
 * - The budget counts windows ("at most `max` in any `perMs`") as a log of writes, the way the
 *   platforms count: a unit taken counts from its start until `perMs` after the write ended (`done`),
 *   or never, when no write was made with it (`cancel`). A token bucket of the same size would let
 *   twice `max` through in one window (a full bucket, then its refill), which Slack refuses.
 * - The instance's own lane still orders its writes (urgent first, by turn): the budget only says
 *   whether the head of its queue may go now or how long to wait.
 * - Never a reason not to answer: a budget that fails (the store unreachable, too slow) is skipped
 *   and the local pacer alone paces (`resilientBudget`, logged once per outage).
 */
import {
  allowedOf,
  type SharedPaceBudget,
  type SharedTake,
  type SharedUnit,
  type SharedWindow,
} from '../store/pace-budget.js';
import type { EditorClock } from './editor-clock.js';

export type { SharedPaceBudget, SharedTake, SharedUnit } from '../store/pace-budget.js';

/** How long one `take` may take before the local pacer goes on alone. */
export const SHARED_TAKE_TIMEOUT_MS = 1_000;
/** After a failure the budget is not asked again for this long (a store that hangs costs no more). */
export const SHARED_RETRY_AFTER_MS = 5_000;

const FREE_UNIT: SharedUnit = { done: () => {}, cancel: () => {} };

/**
 * `budget` that never fails and never holds a write for long: a take that rejects or takes longer
 * than `timeoutMs` grants a unit that counts nowhere (the local pacer alone paces), and the budget
 * is then left alone for `retryAfterMs`. `onOutage` hears of the first failure of each outage,
 * `onRecovered` of its end.
 */
export function resilientBudget(
  budget: SharedPaceBudget,
  options: {
    clock: EditorClock;
    onOutage: (err: unknown) => void;
    onRecovered?: () => void;
    timeoutMs?: number;
    retryAfterMs?: number;
  },
): SharedPaceBudget {
  const { clock } = options;
  const timeoutMs = options.timeoutMs ?? SHARED_TAKE_TIMEOUT_MS;
  const retryAfterMs = options.retryAfterMs ?? SHARED_RETRY_AFTER_MS;
  let failing = false;
  let skipUntil = Number.NEGATIVE_INFINITY;
  const fail = (err: unknown): SharedTake => {
    skipUntil = clock.now() + retryAfterMs;
    if (!failing) {
      failing = true;
      try {
        options.onOutage(err);
      } catch {
        // A logger that throws must not stop a write.
      }
    }
    return { unit: FREE_UNIT };
  };
  return {
    async take(key, windows, urgent) {
      if (clock.now() < skipUntil) return { unit: FREE_UNIT };
      let timer: unknown;
      try {
        const taking = budget.take(key, windows, urgent);
        const answer = await Promise.race([
          taking,
          new Promise<'timeout'>((resolve) => {
            timer = clock.setTimeout(() => resolve('timeout'), timeoutMs);
          }),
        ]);
        if (answer === 'timeout') {
          // A unit it grants after all is given back: nobody writes with it.
          void taking.then((late) => ('unit' in late ? late.unit.cancel() : undefined)).catch(() => {});
          return fail(new Error(`shared pacing budget did not answer within ${timeoutMs} ms`));
        }
        if (failing) {
          failing = false;
          options.onRecovered?.();
        }
        return answer;
      } catch (err) {
        return fail(err);
      } finally {
        clock.clearTimeout(timer);
      }
    },
  };
}

/**
 * The budget in one process (tests: several pacers standing for several instances on one clock).
 * Same arithmetic as the store's (src/store/redis-pace-budget.ts).
 */
export class MemoryPaceBudget implements SharedPaceBudget {
  /** Per key and window: when each unit started or its write ended (Infinity: still in flight). */
  readonly #logs = new Map<string, { at: number }[]>();

  constructor(private readonly clock: EditorClock) {}

  async take(key: string, windows: readonly SharedWindow[], urgent: boolean): Promise<SharedTake> {
    const now = this.clock.now();
    let wait = 0;
    const logs = windows.map((w, i) => {
      const name = `${key}\u0000${i}\u0000${w.max}/${w.perMs}`;
      let log = this.#logs.get(name);
      if (!log) {
        log = [];
        this.#logs.set(name, log);
      }
      const live = log.filter((e) => e.at + w.perMs > now);
      log.splice(0, log.length, ...live);
      const allowed = allowedOf(w, urgent);
      if (log.length >= allowed) {
        // The oldest `used - allowed + 1` entries must leave; entries in flight count as started now.
        const ends = log.map((e) => e.at).sort((a, b) => a - b);
        const leaving = ends[log.length - allowed]!;
        wait = Math.max(wait, leaving + w.perMs - now, 1);
      }
      return log;
    });
    if (wait > 0) return { waitMs: wait };
    const entries = logs.map((log) => {
      const entry = { at: now };
      log.push(entry);
      return { log, entry };
    });
    return {
      unit: {
        done: () => {
          const end = this.clock.now();
          for (const { entry } of entries) entry.at = end;
        },
        cancel: () => {
          for (const { log, entry } of entries) {
            const index = log.indexOf(entry);
            if (index !== -1) log.splice(index, 1);
          }
        },
      },
    };
  }
}
