/**
 * Tests run surfaces on a shrunk time base (an edit interval of tens of milliseconds instead of the
 * platform's second); the per-channel limits shrink by the same factor, so a test sees the same
 * pacing in fewer milliseconds.
 */
import type { ChannelLimits, PaceRule } from '../../src/render/pace-rules.js';

/** `limits` with every window and rate interval multiplied by `scale` (e.g. 20 / 1000). */
export function scaledChannelLimits(limits: ChannelLimits, scale: number): ChannelLimits {
  const rule = (r: PaceRule): PaceRule =>
    'max' in r ? { ...r, perMs: r.perMs * scale } : { ...r, everyMs: r.everyMs * scale };
  return Object.fromEntries(Object.entries(limits).map(([kind, rules]) => [kind, rules.map(rule)]));
}

/** The most writes that started within any `perMs` window. */
export function mostInWindow(starts: number[], perMs: number): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j < sorted.length && sorted[j]! - sorted[i]! < perMs) j++;
    most = Math.max(most, j - i);
  }
  return most;
}
