/**
 * The web chat's session cookie as a browser and an attacker meet it: signed, refused when altered
 * or expired, renewed (same user and CSRF token) once past half its life.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SESSION_COOKIE, SessionCookies } from '../../adapters/web/auth/session-cookie.js';

const DAY = 24 * 3600_000;

/** What a response collects of Set-Cookie, and a request that sends a cookie back. */
function response(): ServerResponse & { cookies(): string[] } {
  const headers = new Map<string, unknown>();
  return {
    getHeader: (name: string) => headers.get(name.toLowerCase()),
    setHeader: (name: string, value: unknown) => headers.set(name.toLowerCase(), value),
    cookies: () => (headers.get('set-cookie') as string[] | undefined) ?? [],
  } as unknown as ServerResponse & { cookies(): string[] };
}

function requestWith(setCookie: string): IncomingMessage {
  const pair = setCookie.split(';')[0] ?? '';
  return { headers: { cookie: `other=1; ${pair}` } } as IncomingMessage;
}

afterEach(() => vi.useRealTimers());

describe('the session cookie', () => {
  const cookies = new SessionCookies(Buffer.alloc(32, 7), 7 * DAY);

  it('is HttpOnly, SameSite=Strict, Secure over https, and reads back as the same session', () => {
    const res = response();
    const session = cookies.issue(res, { id: 'alice', name: 'Alice' }, true);
    const [cookie] = res.cookies();
    expect(cookie).toMatch(new RegExp(`^${SESSION_COOKIE}=`));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Secure/);
    expect(cookies.read(requestWith(cookie as string))).toEqual(session);
  });

  it('is refused when its payload or signature is altered, or when signed with another secret', () => {
    const res = response();
    cookies.issue(res, { id: 'alice', name: 'Alice' }, false);
    const cookie = res.cookies()[0] as string;
    const value = (cookie.split(';')[0] as string).split('=')[1] as string;
    const [payload, signature] = value.split('.') as [string, string];
    const forged = Buffer.from(
      JSON.stringify({ user: { id: 'admin', name: '' }, csrf: 'x', expires: Date.now() + DAY }),
    ).toString('base64url');
    expect(cookies.read(requestWith(`${SESSION_COOKIE}=${forged}.${signature}`))).toBeUndefined();
    expect(cookies.read(requestWith(`${SESSION_COOKIE}=${payload}.${signature.slice(1)}x`))).toBeUndefined();
    const other = new SessionCookies(Buffer.alloc(32, 8), 7 * DAY);
    expect(other.read(requestWith(cookie))).toBeUndefined();
  });

  it('expires, and is renewed with the same user and CSRF token once past half its life', () => {
    vi.useFakeTimers({ now: new Date('2026-12-01T00:00:00Z') });
    const res = response();
    const session = cookies.issue(res, { id: 'anon-1', name: '' }, false);
    const first = res.cookies()[0] as string;
    vi.setSystemTime(new Date('2026-12-03T00:00:00Z'));
    const early = response();
    expect(cookies.renew(early, session, false)).toBe(session);
    expect(early.cookies()).toEqual([]);
    vi.setSystemTime(new Date('2026-12-05T00:00:00Z'));
    const late = response();
    const renewed = cookies.renew(late, session, false);
    expect(renewed).toMatchObject({ user: session.user, csrf: session.csrf });
    expect(renewed.expires).toBe(Date.parse('2026-12-12T00:00:00Z'));
    vi.setSystemTime(new Date('2026-12-09T00:00:00Z'));
    expect(cookies.read(requestWith(first))).toBeUndefined();
    expect(cookies.read(requestWith(late.cookies()[0] as string))).toMatchObject({ user: { id: 'anon-1' } });
  });
});
