/** Small helpers around the Web API client Bolt hands us (types and Slack's error codes). */
import type { App } from '@slack/bolt';
import { DeliveryError } from '../../src/render/delivery.js';

export type SlackClient = App['client'];

/** Slack's `error` string of a failed Web API call (`invalid_blocks`, `feature_not_enabled` …). */
export function slackErrorCode(err: unknown): string | undefined {
  if (err instanceof DeliveryError) return err.code;
  if (typeof err !== 'object' || err === null) return undefined;
  const data = (err as { data?: { error?: unknown } }).data;
  return typeof data?.error === 'string' ? data.error : undefined;
}

/** Errors that mean "this workspace does not do native AI streaming": fall back to post + update. */
export const STREAMING_REFUSALS = new Set([
  'feature_not_enabled',
  'unknown_method',
  'message_not_in_streaming_state',
  'not_allowed_token_type',
  'method_deprecated',
  'missing_scope',
]);

/** Refusals that mean the workspace cannot stream at all (the rest concern one stream). */
export const WORKSPACE_STREAMING_REFUSALS = new Set([
  'feature_not_enabled',
  'unknown_method',
  'not_allowed_token_type',
  'method_deprecated',
  'missing_scope',
]);

/** Slack refuses Scout's writes in this conversation: stop writing there at the first one. */
const REFUSED_CODES = new Set([
  'not_in_channel',
  'channel_not_found',
  'is_archived',
  'restricted_action',
  'restricted_action_read_only_channel',
  'restricted_action_thread_only_channel',
  'restricted_action_non_threadable_channel',
  'ekm_access_denied',
  'access_denied',
  'no_permission',
  'team_access_not_granted',
  'not_allowed',
  'user_not_in_channel',
  'cannot_dm_bot',
  'messages_tab_disabled',
]);
/** The message is gone (deleted by a user, or too old to edit). */
const GONE_CODES = new Set([
  'message_not_found',
  'cant_update_message',
  'edit_window_closed',
  'thread_not_found',
]);
/** Slack's own trouble: worth the same call again later. */
const RETRYABLE_CODES = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);

/**
 * Maps a failed Web API write to the delivery policy's classes (src/render/delivery.ts): a 429 (the
 * SDK's own `WebAPIRateLimitedError`, or its error after its retries ran out, which names the
 * `retry-after`) carries Slack's delay; refusals, vanished messages and outages are told apart.
 */
export function slackDeliveryError(err: unknown): DeliveryError {
  if (err instanceof DeliveryError) return err;
  const e = (typeof err === 'object' && err !== null ? err : {}) as {
    code?: unknown;
    retryAfter?: unknown;
    message?: unknown;
    statusCode?: unknown;
  };
  if (e.code === 'slack_webapi_rate_limited_error' && typeof e.retryAfter === 'number')
    return new DeliveryError(
      { kind: 'rate-limited', code: 'ratelimited', retryAfterMs: e.retryAfter * 1000 },
      err,
    );
  const retryAfter = /rate limit was exceeded.*retry-after: (\d+(?:\.\d+)?)/i.exec(String(e.message ?? ''));
  if (retryAfter)
    return new DeliveryError(
      { kind: 'rate-limited', code: 'ratelimited', retryAfterMs: Number(retryAfter[1]) * 1000 },
      err,
    );
  const code = slackErrorCode(err);
  if (code === 'ratelimited' || code === 'rate_limited')
    return new DeliveryError({ kind: 'rate-limited', code, retryAfterMs: 1000 }, err);
  if (code && REFUSED_CODES.has(code)) return new DeliveryError({ kind: 'refused', code }, err);
  if (code && GONE_CODES.has(code)) return new DeliveryError({ kind: 'gone', code }, err);
  if (code && RETRYABLE_CODES.has(code)) return new DeliveryError({ kind: 'retryable', code }, err);
  if (code) return new DeliveryError({ kind: 'rejected', code }, err);
  // No Slack answer at all: the request failed on the way (network, timeout, a 5xx).
  if (e.code === 'slack_webapi_request_error' || (typeof e.statusCode === 'number' && e.statusCode >= 500))
    return new DeliveryError({ kind: 'retryable', code: String(e.statusCode ?? e.code) }, err);
  return new DeliveryError({ kind: 'rejected', code: String(e.code ?? 'unknown') }, err);
}

/** Runs one Web API write, its failure classified for the delivery policy. */
export async function slackWrite<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw slackDeliveryError(err);
  }
}
