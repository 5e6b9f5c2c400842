/**
 * The web chat's session: who the browser is, in a signed cookie (HMAC-SHA256), HttpOnly and
 * SameSite=Strict, so a page elsewhere can neither read it nor send it. It carries the CSRF token
 * too: the page reads the token from /api/session (same origin only) and sends it back in a header
 * on every change, which a cross-site form cannot do.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Stores } from '../../../src/store/types.js';
import { readCookie } from '../http-kit.js';

export const SESSION_COOKIE = 'scout_session';

export interface WebUser {
  /** Stable id: the login name, the proxy's header value, the OIDC email or subject, or anon-…. */
  id: string;
  /** What the page shows. */
  name: string;
}

export interface Session {
  user: WebUser;
  csrf: string;
  /** Epoch ms after which the cookie is refused. */
  expires: number;
}

const b64 = (data: Buffer | string) => Buffer.from(data).toString('base64url');

export class SessionCookies {
  constructor(
    private readonly secret: Buffer,
    private readonly ttlMs: number,
  ) {}

  #sign(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest('base64url');
  }

  /** Sets a new session cookie for `user` and returns the session. */
  issue(res: ServerResponse, user: WebUser, secure: boolean): Session {
    return this.#set(res, { user, csrf: randomBytes(18).toString('base64url'), expires: 0 }, secure);
  }

  /**
   * A session past half its life gets a fresh cookie (same user and CSRF token, so an open page goes
   * on working): someone who comes back every few days is never logged out, nor loses the
   * conversations of an anonymous loopback user.
   */
  renew(res: ServerResponse, session: Session, secure: boolean): Session {
    if (session.expires - Date.now() > this.ttlMs / 2) return session;
    return this.#set(res, session, secure);
  }

  #set(res: ServerResponse, current: Session, secure: boolean): Session {
    const session: Session = { ...current, expires: Date.now() + this.ttlMs };
    const payload = b64(JSON.stringify(session));
    const value = `${payload}.${this.#sign(payload)}`;
    appendCookie(
      res,
      `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(this.ttlMs / 1000)}${secure ? '; Secure' : ''}`,
    );
    return session;
  }

  /** The request's session when its cookie is ours, untampered and unexpired. */
  read(req: IncomingMessage): Session | undefined {
    const value = readCookie(req, SESSION_COOKIE);
    if (!value || value.length > 4096) return undefined;
    const dot = value.indexOf('.');
    if (dot <= 0) return undefined;
    const payload = value.slice(0, dot);
    const given = Buffer.from(value.slice(dot + 1));
    const expected = Buffer.from(this.#sign(payload));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const session = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Session;
      if (typeof session.expires !== 'number' || session.expires < Date.now()) return undefined;
      if (typeof session.user?.id !== 'string' || typeof session.csrf !== 'string') return undefined;
      return session;
    } catch {
      return undefined;
    }
  }

  clear(res: ServerResponse): void {
    appendCookie(res, `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`);
  }
}

export function appendCookie(res: ServerResponse, cookie: string): void {
  const existing = res.getHeader('Set-Cookie');
  const list = Array.isArray(existing) ? existing : existing ? [String(existing)] : [];
  res.setHeader('Set-Cookie', [...list, cookie]);
}

/** Constant-time comparison of two strings (the CSRF header against the session's token). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const SECRET_KEY = 'web:session-secret';

/**
 * WEB_SESSION_SECRET, or one made once and kept in the store, so every instance on a shared store
 * signs alike and a restart keeps people logged in. The first instance to write it wins (under the
 * store's lock), the others read it back.
 */
export async function sessionSecret(configured: string | undefined, stores: Stores): Promise<Buffer> {
  if (configured) return Buffer.from(configured);
  const lease = await stores.locks.acquire(`lock:${SECRET_KEY}`, { ttlMs: 10_000, waitMs: 10_000 });
  try {
    const existing = (await stores.meta.get(SECRET_KEY)) as string | undefined;
    if (typeof existing === 'string' && existing.length >= 43) return Buffer.from(existing, 'base64url');
    const made = randomBytes(32);
    await stores.meta.set(SECRET_KEY, made.toString('base64url'));
    return made;
  } finally {
    await lease.release();
  }
}
