/**
 * The timer functions the editors and pacers use (throttled-editor.ts, channel-pacer.ts); in a file
 * of its own so that neither has to import the other for it.
 */
import { timerDelay } from '../timer-delay.js';

/** The timer functions the editor uses; injectable so tests never wait for real time. */
export interface EditorClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The real timers; a delay too long for a timer waits the longest one holds (timer-delay.ts). */
export const systemClock: EditorClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, timerDelay(ms)),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
