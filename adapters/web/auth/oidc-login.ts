/**
 * OpenID Connect login (WEB_OIDC_*): the browser goes to the provider and comes back with a code,
 * which openid-client (a maintained, certified relying party on jose and oauth4webapi) exchanges for
 * an ID token whose issuer, audience, expiry, nonce and (asked for explicitly) signature it checks.
 *
 * What the round trip needs to remember (the PKCE verifier, state and nonce) rides in a short-lived
 * cookie `scout_oidc`, signed with the session secret (HMAC-SHA256 under a key of its own), HttpOnly,
 * and SameSite=Lax: the provider's redirect back is a top-level cross-site GET, which Strict would
 * send without it. The cookie is good for one try: the callback clears it whatever happens.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as client from 'openid-client';
import type { Logger } from '../../../src/logger.js';
import { HttpError, readCookie } from '../http-kit.js';
import { appendCookie, type WebUser } from './session-cookie.js';

export const OIDC_COOKIE = 'scout_oidc';
/** How long the provider's login page may take before the round trip must start again. */
const ROUND_TRIP_MS = 10 * 60_000;
/** A cookie (or its payload) longer than this is not ours. */
const MAX_COOKIE_CHARS = 2048;
const DISCOVERY_TIMEOUT_S = 15;
const SCOPE = 'openid email profile';

export interface OidcLogin {
  /** Discovers the issuer (once, at start; rejects with a clear message naming WEB_OIDC_ISSUER when it cannot). */
  start(): Promise<void>;
  /** Redirects the browser (302) to the provider's authorization endpoint, with PKCE (S256), state and nonce kept in a short-lived signed HttpOnly SameSite=Lax cookie `scout_oidc` (Lax: the provider's redirect back is a top-level cross-site GET). */
  begin(req: IncomingMessage, res: ServerResponse, secure: boolean): Promise<void>;
  /** Handles GET /auth/callback: checks state, exchanges the code, validates the ID token (openid-client does), clears the cookie, and returns the user ({ id: email when verified else preferred_username else sub, name: name or that id }) or throws HttpError(401, a friendly sentence) — never echoing tokens. */
  callback(req: IncomingMessage, res: ServerResponse, url: URL): Promise<WebUser>;
}

export interface OidcLoginOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Where browsers reach Scout; redirect_uri = publicUrl + '/auth/callback'. */
  publicUrl: string;
  /** Signs the state cookie (HMAC). */
  cookieSecret: Buffer;
  logger: Logger;
  /** Discovery and token requests give up after this long (seconds); default 15. */
  timeoutSeconds?: number;
}

/** What the cookie carries between begin() and callback(). */
interface RoundTrip {
  /** PKCE code_verifier. */
  v: string;
  /** state */
  s: string;
  /** nonce */
  n: string;
  /** Epoch ms after which it is refused. */
  e: number;
}

const AGAIN = 'Sign in again.';
const EXPIRED = `Your sign-in took too long or was started in another browser or tab. ${AGAIN}`;
const REFUSED = `The sign-in could not be completed. ${AGAIN}`;
const CANCELLED = `The sign-in was cancelled or refused by your identity provider. ${AGAIN}`;

/** Whether an issuer URL may be plain http: only on this machine (tests, a local Keycloak). */
export function isLoopbackUrl(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The issuer as it may appear in a message: no credentials, query or fragment. */
function shown(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** A user id or name from the provider: one line, bounded, no control characters. */
function clean(value: unknown): string {
  if (typeof value !== 'string') return '';
  return value
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 200);
}

export function createOidcLogin(options: OidcLoginOptions): OidcLogin {
  const { clientId, clientSecret, logger } = options;
  const redirectUri = new URL(`${options.publicUrl.replace(/\/+$/, '')}/auth/callback`);
  const cookiePath = redirectUri.pathname;
  // A key of its own, so nothing signed for the session cookie can pass for this one, or back.
  const key = createHmac('sha256', options.cookieSecret).update('scout_oidc state cookie').digest();
  const timeout = options.timeoutSeconds ?? DISCOVERY_TIMEOUT_S;
  let config: client.Configuration | undefined;
  let starting: Promise<void> | undefined;

  /** An error's short reason, with nothing configured as secret in it. */
  const reasonOf = (err: unknown): string => {
    const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } };
    const parts = [e?.cause?.code ?? e?.code, e?.cause?.message ?? e?.message]
      .filter((part): part is string => typeof part === 'string' && part !== '')
      .map((part) => part.slice(0, 200));
    let text = [...new Set(parts)].join(': ') || 'unknown error';
    for (const secret of [clientSecret, options.cookieSecret.toString()]) {
      if (secret.length >= 4) text = text.split(secret).join('[redacted]');
    }
    return text;
  };

  const sign = (payload: string) => createHmac('sha256', key).update(payload).digest('base64url');

  const clearCookie = (res: ServerResponse) =>
    appendCookie(
      res,
      `${OIDC_COOKIE}=; Path=${cookiePath}; HttpOnly; SameSite=Lax; Max-Age=0${redirectUri.protocol === 'https:' ? '; Secure' : ''}`,
    );

  const readRoundTrip = (req: IncomingMessage): RoundTrip | undefined => {
    const value = readCookie(req, OIDC_COOKIE);
    if (!value || value.length > MAX_COOKIE_CHARS) return undefined;
    const dot = value.indexOf('.');
    if (dot <= 0) return undefined;
    const payload = value.slice(0, dot);
    const given = Buffer.from(value.slice(dot + 1));
    const expected = Buffer.from(sign(payload));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const trip = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<RoundTrip>;
      if (typeof trip.e !== 'number' || trip.e < Date.now()) return undefined;
      if (typeof trip.v !== 'string' || typeof trip.s !== 'string' || typeof trip.n !== 'string')
        return undefined;
      return trip as RoundTrip;
    } catch {
      return undefined;
    }
  };

  const ready = (): client.Configuration => {
    if (!config) throw new HttpError(503, 'Sign-in is not available yet: try again in a moment.');
    return config;
  };

  const discover = async (): Promise<void> => {
    let issuer: URL;
    try {
      issuer = new URL(options.issuer);
    } catch {
      throw new Error(
        'WEB_OIDC_ISSUER: not a URL (the OpenID provider’s issuer, e.g. https://login.example.com/realms/main)',
      );
    }
    const insecure = issuer.protocol === 'http:' && isLoopbackUrl(issuer);
    if (issuer.protocol !== 'https:' && !insecure) {
      throw new Error(
        `WEB_OIDC_ISSUER: must be an https:// URL (plain http only on loopback, for local testing), got ${shown(issuer)}`,
      );
    }
    try {
      config = await client.discovery(issuer, clientId, clientSecret, undefined, {
        timeout,
        // The ID token's signature is checked against the provider's JWKS too: openid-client
        // otherwise leans on TLS alone for a token from the token endpoint (OIDC Core 3.1.3.7),
        // which a plain-http loopback issuer does not have, and a signature is cheap to check.
        execute: insecure
          ? [client.allowInsecureRequests, client.enableNonRepudiationChecks]
          : [client.enableNonRepudiationChecks],
      });
    } catch (err) {
      throw new Error(
        `WEB_OIDC_ISSUER: could not discover the OpenID provider at ${shown(issuer)} (${reasonOf(err)}); check the URL and that Scout can reach it`,
      );
    }
    logger.info({ event: 'web.oidc.ready', issuer: shown(issuer) }, 'OpenID Connect provider discovered');
  };

  return {
    start(): Promise<void> {
      starting ??= discover().catch((err: unknown) => {
        starting = undefined; // a later start() may try again
        throw err;
      });
      return starting;
    },

    async begin(_req, res, secure) {
      const cfg = ready();
      const trip: RoundTrip = {
        v: client.randomPKCECodeVerifier(),
        s: client.randomState(),
        n: client.randomNonce(),
        e: Date.now() + ROUND_TRIP_MS,
      };
      const location = client.buildAuthorizationUrl(cfg, {
        redirect_uri: redirectUri.href,
        scope: SCOPE,
        code_challenge: await client.calculatePKCECodeChallenge(trip.v),
        code_challenge_method: 'S256',
        state: trip.s,
        nonce: trip.n,
      });
      const payload = Buffer.from(JSON.stringify(trip)).toString('base64url');
      appendCookie(
        res,
        `${OIDC_COOKIE}=${payload}.${sign(payload)}; Path=${cookiePath}; HttpOnly; SameSite=Lax; Max-Age=${ROUND_TRIP_MS / 1000}${secure ? '; Secure' : ''}`,
      );
      res.writeHead(302, { Location: location.href, 'Cache-Control': 'no-store' });
      res.end();
    },

    async callback(req, res, url) {
      const cfg = ready();
      const trip = readRoundTrip(req);
      clearCookie(res);
      if (!trip) {
        logger.info(
          { event: 'web.oidc.failed', reason: 'no valid state cookie' },
          'OpenID Connect login refused',
        );
        throw new HttpError(401, EXPIRED);
      }
      if (url.searchParams.has('error')) {
        logger.info(
          { event: 'web.oidc.failed', reason: clean(url.searchParams.get('error')).slice(0, 60) },
          'OpenID Connect login refused by the provider',
        );
        throw new HttpError(401, CANCELLED);
      }
      // The provider's response as it came, at the redirect_uri it was sent to (which must match
      // what the authorization request named, whatever host or proxy the request reached us by).
      const current = new URL(redirectUri.href);
      for (const [name, value] of url.searchParams) current.searchParams.append(name, value);
      let claims: client.IDToken | undefined;
      try {
        const tokens = await client.authorizationCodeGrant(cfg, current, {
          pkceCodeVerifier: trip.v,
          expectedState: trip.s,
          expectedNonce: trip.n,
          idTokenExpected: true,
        });
        claims = tokens.claims();
      } catch (err) {
        logger.info({ event: 'web.oidc.failed', reason: reasonOf(err) }, 'OpenID Connect login refused');
        throw new HttpError(401, REFUSED);
      }
      const email = claims?.['email_verified'] === true ? clean(claims['email']) : '';
      const id = email || clean(claims?.['preferred_username']) || clean(claims?.sub);
      if (!id) {
        logger.info(
          { event: 'web.oidc.failed', reason: 'no usable subject' },
          'OpenID Connect login refused',
        );
        throw new HttpError(401, REFUSED);
      }
      return { id, name: clean(claims?.['name']) || id };
    },
  };
}
