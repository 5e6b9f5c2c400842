/**
 * The environment variables of the chat platforms, Slack and Discord (part of EnvSchema, env.ts),
 * and the check of the Slack variables that only make sense together.
 */
import { duration, intIn, optionalString, url } from './env-values.js';

export const PLATFORM_FIELDS = {
  // ── Slack ───────────────────────────────────────────────────────────────────
  SLACK_BOT_TOKEN: optionalString,
  SLACK_APP_TOKEN: optionalString,
  SLACK_SIGNING_SECRET: optionalString,
  SLACK_API_URL: url('https://slack.com/api/'),
  /** Socket Mode connections kept open, so one can drop or be refreshed while another serves. */
  SLACK_SOCKET_CONNECTIONS: intIn(2, 1, 5),
  /** Socket Mode start-up gives up after this long without a connection (reconnects never do). */
  SLACK_STARTUP_TIMEOUT: duration('3m'),

  // ── Discord ─────────────────────────────────────────────────────────────────
  DISCORD_TOKEN: optionalString,
  DISCORD_GUILD_ID: optionalString,
  DISCORD_API_URL: url(),
};

/** Slack needs its bot token plus one way in (Socket Mode app token or HTTP signing secret). */
export function slackProblems(env: Record<string, unknown>): string[] {
  const set = (name: string) => typeof env[name] === 'string' && (env[name] as string).trim() !== '';
  if (set('SLACK_BOT_TOKEN') && !set('SLACK_APP_TOKEN') && !set('SLACK_SIGNING_SECRET')) {
    return [
      'SLACK_APP_TOKEN or SLACK_SIGNING_SECRET: one is required with SLACK_BOT_TOKEN (Socket Mode or HTTP mode)',
    ];
  }
  if (!set('SLACK_BOT_TOKEN') && (set('SLACK_APP_TOKEN') || set('SLACK_SIGNING_SECRET'))) {
    return ['SLACK_BOT_TOKEN: required when SLACK_APP_TOKEN or SLACK_SIGNING_SECRET is set'];
  }
  // A bot token pasted here makes Socket Mode retry forever; say so before connecting.
  if (set('SLACK_APP_TOKEN') && !String(env['SLACK_APP_TOKEN']).trim().startsWith('xapp-')) {
    return ['SLACK_APP_TOKEN: must be an app-level token (xapp-…) with the connections:write scope'];
  }
  return [];
}
