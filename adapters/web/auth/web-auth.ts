/**
 * Who is asking, for every request of the web chat:
 * - loopback with no login configured: each browser is a user of its own (an anonymous id in its
 *   session cookie), so two browsers never see each other's conversations;
 * - WEB_AUTH_HEADER: the user a reverse proxy names (oauth2-proxy, Pomerium, Cloudflare Access…),
 *   believed only from WEB_TRUSTED_PROXIES;
 * - WEB_PASSWORD: the login page; the name typed there names the user;
 * - OpenID Connect (WEB_OIDC_*): the login goes to the provider and back (oidc-login.ts).
 * Whatever the way in, the user then has a signed session cookie, and every change needs its CSRF token.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Env } from '../../../src/config/env.js';
import { phrase } from '../../../src/i18n/phrase.js';
import { HttpError } from '../http-kit.js';
import { type PasswordHash, passwordMatches } from './password.js';
import { type Session, type SessionCookies, sameSecret, type WebUser } from './session-cookie.js';
import { TrustedProxies } from './trusted-proxies.js';

export type AuthKind = 'none' | 'password' | 'header' | 'oidc';

/** A user id or name from a header or a form: one line, bounded, no control characters. */
export function cleanUserName(raw: string): string {
  return raw
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 200);
}

export interface WebAuthOptions {
  env: Env;
  cookies: SessionCookies;
  password?: PasswordHash;
  oidc: boolean;
}

export class WebAuth {
  readonly kind: AuthKind;
  readonly #proxies: TrustedProxies;
  readonly #header: string | undefined;

  constructor(private readonly o: WebAuthOptions) {
    this.#proxies = new TrustedProxies(o.env.WEB_TRUSTED_PROXIES);
    this.#header = o.env.WEB_AUTH_HEADER?.toLowerCase();
    this.kind = this.#header ? 'header' : o.oidc ? 'oidc' : o.password ? 'password' : 'none';
  }

  /** Whether the request came through one of WEB_TRUSTED_PROXIES. */
  fromProxy(req: IncomingMessage): boolean {
    return this.#proxies.trusts(req.socket.remoteAddress);
  }

  /** Whether the browser reached Scout over https (itself, or a trusted proxy saying so). */
  secure(req: IncomingMessage): boolean {
    if ('encrypted' in req.socket && req.socket.encrypted) return true;
    const proto = String(req.headers['x-forwarded-proto'] ?? '')
      .split(',')[0]
      ?.trim();
    return proto === 'https' && this.fromProxy(req);
  }

  /** The client's address for rate limits: a trusted proxy's X-Forwarded-For, else the socket's. */
  clientAddress(req: IncomingMessage): string {
    const socket = req.socket.remoteAddress ?? 'unknown';
    if (!this.fromProxy(req)) return socket;
    const forwarded = String(req.headers['x-forwarded-for'] ?? '')
      .split(',')
      .at(-1)
      ?.trim();
    return forwarded || socket;
  }

  /**
   * The request's session, made when the way in allows it without a login page (loopback, the
   * proxy's header); undefined means "log in first".
   */
  session(req: IncomingMessage, res: ServerResponse): Session | undefined {
    const current = this.o.cookies.read(req);
    if (this.#header) {
      if (!this.fromProxy(req)) return undefined;
      const raw = req.headers[this.#header];
      const name = cleanUserName(Array.isArray(raw) ? (raw[0] ?? '') : (raw ?? ''));
      if (!name) return undefined;
      if (current?.user.id === name) return this.o.cookies.renew(res, current, this.secure(req));
      return this.o.cookies.issue(res, { id: name, name }, this.secure(req));
    }
    if (current) return this.o.cookies.renew(res, current, this.secure(req));
    if (this.kind === 'none') {
      const user: WebUser = { id: `anon-${randomBytes(9).toString('base64url')}`, name: '' };
      return this.o.cookies.issue(res, user, this.secure(req));
    }
    return undefined;
  }

  /** A state change must carry the session's CSRF token, and come from this page's own origin. */
  checkChange(req: IncomingMessage, session: Session): void {
    const token = req.headers['x-csrf-token'];
    if (typeof token !== 'string' || !sameSecret(token, session.csrf)) {
      throw new HttpError(403, phrase('web.error.csrf'));
    }
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== 'null') {
      let host: string | undefined;
      try {
        host = new URL(origin).host;
      } catch {
        host = undefined;
      }
      if (host !== req.headers.host) throw new HttpError(403, phrase('web.error.cross-site'));
    }
  }

  /** The password login: the name the user gave, when the password is right. */
  async passwordLogin(name: string, password: string): Promise<WebUser | undefined> {
    if (!this.o.password) return undefined;
    const clean = cleanUserName(name);
    if (!clean) return undefined;
    if (!(await passwordMatches(password, this.o.password))) return undefined;
    return { id: clean, name: clean };
  }

  issue(req: IncomingMessage, res: ServerResponse, user: WebUser): Session {
    return this.o.cookies.issue(res, user, this.secure(req));
  }

  logout(res: ServerResponse): void {
    this.o.cookies.clear(res);
  }
}
