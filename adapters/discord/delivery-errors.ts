/**
 * Maps a failed discord.js write to the delivery policy's classes (src/render/delivery.ts), read off
 * the error's shape (no SDK import): `RateLimitError.retryAfter` (ms) or a 429's `retry_after` (s)
 * becomes the delay; 403 / 50001 / 50013 (no access, missing permissions) are refusals that stop the
 * turn's writes at the first one — Discord counts repeated 401/403/429s toward its invalid-request
 * limit; 10008 / 10003 / 404 mean the message or channel is gone; 5xx and network errors are retried.
 */
import { DeliveryError } from '../../src/render/delivery.js';

/** Missing access, missing permissions, cannot send in a thread that is locked or archived. */
const REFUSED_CODES = new Set([50001, 50013, 50083, 160005, 50007]);
/** Unknown message, unknown channel, unknown webhook / interaction. */
const GONE_CODES = new Set([10008, 10003, 10015, 10062]);
const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'UND_ERR_SOCKET']);

export function discordDeliveryError(err: unknown): DeliveryError {
  if (err instanceof DeliveryError) return err;
  const e = (typeof err === 'object' && err !== null ? err : {}) as {
    name?: unknown;
    code?: unknown;
    status?: unknown;
    retryAfter?: unknown;
    rawError?: { retry_after?: unknown };
  };
  if (typeof e.name === 'string' && e.name.startsWith('RateLimitError') && typeof e.retryAfter === 'number')
    return new DeliveryError({ kind: 'rate-limited', code: '429', retryAfterMs: e.retryAfter }, err);
  if (e.status === 429) {
    const seconds = typeof e.rawError?.retry_after === 'number' ? e.rawError.retry_after : 1;
    return new DeliveryError({ kind: 'rate-limited', code: '429', retryAfterMs: seconds * 1000 }, err);
  }
  const code = typeof e.code === 'number' ? e.code : undefined;
  const label = String(code ?? e.status ?? e.code ?? e.name ?? 'unknown');
  if ((code !== undefined && REFUSED_CODES.has(code)) || e.status === 403)
    return new DeliveryError({ kind: 'refused', code: label }, err);
  if ((code !== undefined && GONE_CODES.has(code)) || e.status === 404)
    return new DeliveryError({ kind: 'gone', code: label }, err);
  if (
    (typeof e.status === 'number' && e.status >= 500) ||
    (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) ||
    e.name === 'AbortError'
  )
    return new DeliveryError({ kind: 'retryable', code: label }, err);
  return new DeliveryError({ kind: 'rejected', code: label }, err);
}

/** Runs one discord.js write, its failure classified for the delivery policy. */
export async function discordWrite<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw discordDeliveryError(err);
  }
}
