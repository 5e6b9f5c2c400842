/**
 * What a write budget shared by several instances answers (the Redis one: redis-pace-budget.ts; how
 * the pacers use it: src/render/pace-budget.ts). Here, below the renderer, so the store names no
 * layer above it.
 */

/** At most `max` writes in any `perMs` ms; ordinary writes leave `reserve` (default 1) to urgent ones. */
export interface SharedWindow {
  readonly max: number;
  readonly perMs: number;
  readonly reserve?: number;
}

/** A unit of every window taken: the write it was taken for ended, or was never made. */
export interface SharedUnit {
  done(): void;
  cancel(): void;
}

/** The answer to `take`: a unit now, or how long until the windows have room again. */
export type SharedTake = { readonly unit: SharedUnit } | { readonly waitMs: number };

export interface SharedPaceBudget {
  /**
   * Takes one unit of each window under `key` when every one has room for it (an ordinary write
   * leaves each window's `reserve` for urgent ones), else says how long to wait. Rejects when the
   * budget cannot answer.
   */
  take(key: string, windows: readonly SharedWindow[], urgent: boolean): Promise<SharedTake>;
}

/** How much of a window a write may use: all of it when urgent, else less its reserve. */
export function allowedOf({ max, reserve }: SharedWindow, urgent: boolean): number {
  if (urgent) return max;
  return Math.max(Math.min(1, max), max - (reserve ?? 1));
}
