/**
 * Why opening a Socket Mode connection failed, in words an operator can act on, and whether trying
 * again can help. The Web API client's errors are told apart by their `code` (stable across
 * @slack/web-api copies, unlike `instanceof`).
 */

/**
 * `apps.connections.open` answers that no retry fixes: a wrong, revoked or non-app-level token.
 * At start-up they end start() at once; after that the pool still retries (the token may be
 * rotated), slowly.
 */
const UNRECOVERABLE = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'not_allowed_token_type',
  'missing_scope',
  'team_disabled',
  'user_removed_from_team',
]);

interface WebApiErrorShape {
  code?: string;
  data?: { error?: string };
  statusCode?: number;
  retryAfter?: number;
  original?: Error;
  message?: string;
}

const shape = (err: unknown): WebApiErrorShape =>
  typeof err === 'object' && err !== null ? (err as WebApiErrorShape) : { message: String(err) };

/** Slack's error string when apps.connections.open answered `ok: false`. */
export function platformError(err: unknown): string | undefined {
  const e = shape(err);
  return e.code === 'slack_webapi_platform_error' ? e.data?.error : undefined;
}

export function isUnrecoverable(err: unknown): boolean {
  const code = platformError(err);
  return code !== undefined && UNRECOVERABLE.has(code);
}

/** Slack's Retry-After on a 429, in ms. */
export function retryAfterMs(err: unknown): number | undefined {
  const e = shape(err);
  return e.code === 'slack_webapi_rate_limited_error' && typeof e.retryAfter === 'number'
    ? e.retryAfter * 1000
    : undefined;
}

export function describeOpenFailure(err: unknown): string {
  const e = shape(err);
  switch (e.code) {
    case 'slack_webapi_platform_error':
      return `apps.connections.open answered ${e.data?.error ?? 'ok:false'}`;
    case 'slack_webapi_http_error':
      return `apps.connections.open answered HTTP ${e.statusCode}`;
    case 'slack_webapi_rate_limited_error':
      return `apps.connections.open rate-limited (retry after ${e.retryAfter} s)`;
    case 'slack_webapi_request_error':
      return `request to SLACK_API_URL failed (${e.original?.message ?? e.message})`;
    default:
      return e.message || 'unknown error';
  }
}
