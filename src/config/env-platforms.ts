/**
 * The environment variables of the chat platforms, Slack and Discord (part of EnvSchema, env.ts),
 * and the check of the Slack variables that only make sense together.
 */
import * as z from '../schema/zod.js';
import { duration, intIn, list, number, optionalString, url } from './env-values.js';

export const PLATFORM_FIELDS = {
  // ── Slack ───────────────────────────────────────────────────────────────────
  SLACK_BOT_TOKEN: optionalString,
  SLACK_APP_TOKEN: optionalString,
  SLACK_SIGNING_SECRET: optionalString,
  SLACK_API_URL: url('https://slack.com/api/'),
  /**
   * A Slack user token (xoxp-) search_workspace may use for a message without an action_token (a
   * slash command). It searches as that user, not the asker: public channels only.
   */
  SLACK_SEARCH_USER_TOKEN: optionalString,
  /** Socket Mode connections kept open, so one can drop or be refreshed while another serves. */
  SLACK_SOCKET_CONNECTIONS: intIn(2, 1, 5),
  /** Socket Mode start-up gives up after this long without a connection (reconnects never do). */
  SLACK_STARTUP_TIMEOUT: duration('3m'),

  // ── Discord ─────────────────────────────────────────────────────────────────
  DISCORD_TOKEN: optionalString,
  DISCORD_GUILD_ID: optionalString,
  DISCORD_API_URL: url(),

  // ── Web chat (adapters/web) ─────────────────────────────────────────────────
  /** Serves the web chat on this port when set. */
  WEB_PORT: z.optional(number(1, 65_535, true)),
  /** Where it binds: loopback by default; any other address needs one of the logins below. */
  WEB_HOST: z._default(z.string(), '127.0.0.1'),
  /** A shared password for the login page (kept only as a scrypt hash once read). */
  WEB_PASSWORD: optionalString,
  /** A header naming the user, set by a reverse proxy (e.g. X-Forwarded-User / X-Auth-Request-Email). */
  WEB_AUTH_HEADER: optionalString,
  /** Addresses or CIDR ranges WEB_AUTH_HEADER and X-Forwarded-* are accepted from. */
  WEB_TRUSTED_PROXIES: list,
  /** OpenID Connect: the issuer URL, client and the public address Scout is reached at. */
  WEB_OIDC_ISSUER: url(),
  WEB_OIDC_CLIENT_ID: optionalString,
  WEB_OIDC_CLIENT_SECRET: optionalString,
  WEB_PUBLIC_URL: url(),
  /** Signs session cookies; unset: a random secret kept in the store (shared by every instance). */
  WEB_SESSION_SECRET: optionalString,
  /** How long a login lasts. */
  WEB_SESSION_TTL: duration('7d'),
  /** Suggested prompts on an empty chat, separated by "|"; unset: Scout's own. */
  WEB_STARTERS: optionalString,
};

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);

/** Whether WEB_HOST keeps the web chat on this machine (then no login is needed). */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The web chat's variables that only make sense together; never echoes a value. */
export function webProblems(env: Record<string, unknown>): string[] {
  const set = (name: string) => typeof env[name] === 'string' && (env[name] as string).trim() !== '';
  const problems: string[] = [];
  if (!set('WEB_PORT')) return problems;
  const host = String(env['WEB_HOST'] ?? '127.0.0.1').trim() || '127.0.0.1';
  const oidc = ['WEB_OIDC_ISSUER', 'WEB_OIDC_CLIENT_ID', 'WEB_OIDC_CLIENT_SECRET', 'WEB_PUBLIC_URL'];
  const oidcSet = oidc.filter(set);
  if (oidcSet.length > 0 && oidcSet.length < oidc.length) {
    problems.push(
      `${oidc.filter((name) => !set(name)).join(', ')}: required with ${oidcSet.join(', ')} (OpenID Connect login)`,
    );
  }
  if (set('WEB_AUTH_HEADER') && !set('WEB_TRUSTED_PROXIES')) {
    problems.push(
      'WEB_TRUSTED_PROXIES: required with WEB_AUTH_HEADER (the proxy addresses the header is accepted from)',
    );
  }
  const login = set('WEB_PASSWORD') || set('WEB_AUTH_HEADER') || oidcSet.length === oidc.length;
  if (!isLoopbackHost(host) && !login) {
    problems.push(
      'WEB_PASSWORD, WEB_AUTH_HEADER or WEB_OIDC_ISSUER: one is required when WEB_HOST is not a loopback address (anyone who reaches the port could use your keys)',
    );
  }
  if (set('WEB_SESSION_SECRET') && String(env['WEB_SESSION_SECRET']).trim().length < 32) {
    problems.push('WEB_SESSION_SECRET: must be at least 32 characters');
  }
  return problems;
}

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
