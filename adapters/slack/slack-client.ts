/** Small helpers around the Web API client Bolt hands us (types and Slack's error codes). */
import type { App } from '@slack/bolt';

export type SlackClient = App['client'];

/** Slack's `error` string of a failed Web API call (`invalid_blocks`, `feature_not_enabled` …). */
export function slackErrorCode(err: unknown): string | undefined {
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
