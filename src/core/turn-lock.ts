/**
 * One turn per conversation at a time: a turn holds its conversation's lock from before it reads the
 * history until its final render landed, so the next message waits and never posts its steps between
 * this answer's last messages.
 */
import type { Lease, LockService } from '../store/types.js';

/**
 * A turn's conversation lease: renewed every third of it while the turn runs, so a holder that dies
 * (kill -9, lost network) frees its conversation within this long instead of blocking the next turn.
 */
export const TURN_LOCK_TTL_MS = 5_000;
/** Waiting longer than this for the conversation's lock shows "waiting for the previous answer…". */
const LOCK_WAIT_NOTICE_MS = 500;

export type TurnLock = { lease: Lease } | { error: unknown; waited: boolean };

/**
 * The conversation's lock for a turn. After LOCK_WAIT_NOTICE_MS of waiting `onWaiting(true)` is
 * called (a notice), and `onWaiting(false)` once the lock is held; a failure (Stop while waiting, the
 * store down) comes back with whether the notice was shown, for the caller to end that same message.
 */
export async function acquireTurnLock(
  locks: LockService,
  conversationId: string,
  signal: AbortSignal,
  onWaiting: (waiting: boolean) => void,
): Promise<TurnLock> {
  let waited = false;
  const waitNotice = setTimeout(() => {
    waited = true;
    onWaiting(true);
  }, LOCK_WAIT_NOTICE_MS);
  try {
    const lease = await locks.acquire(`conv:${conversationId}`, { ttlMs: TURN_LOCK_TTL_MS, signal });
    if (waited) onWaiting(false);
    return { lease };
  } catch (error) {
    return { error, waited };
  } finally {
    clearTimeout(waitNotice);
  }
}
