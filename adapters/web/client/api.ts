/**
 * The page's one way to the JSON API (PROTOCOL.md › Every request): same origin, cookies included,
 * the CSRF token on every state change, and a 401 anywhere sends the browser to the login form.
 */
import type { Session, Upload } from './protocol.js';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly problems: string[] = [],
  ) {
    super(message);
  }
}

let csrf = '';

/** The token from /api/session, sent back on POST, PUT, PATCH and DELETE. */
export function setCsrf(token: string): void {
  csrf = token;
}

const LOGIN_GUARD = 'scout-login-redirect';

/**
 * To the login form, once: where the server has no login page (a trusted proxy's header, OIDC)
 * /login sends the browser back here, and a second 401 soon after must not start a loop.
 */
export function goToLogin(): boolean {
  const last = Number(sessionStorage.getItem(LOGIN_GUARD) ?? 0);
  if (Date.now() - last < 15_000) return false;
  sessionStorage.setItem(LOGIN_GUARD, String(Date.now()));
  location.assign('/login');
  return true;
}

async function request<T>(
  method: string,
  path: string,
  body?: BodyInit,
  headers: Record<string, string> = {},
): Promise<T> {
  const init: RequestInit = {
    method,
    credentials: 'same-origin',
    headers: { Accept: 'application/json', ...headers },
  };
  if (method !== 'GET' && method !== 'HEAD') (init.headers as Record<string, string>)['X-CSRF-Token'] = csrf;
  if (body !== undefined) init.body = body;
  const res = await fetch(path, init);
  if (res.status === 401) {
    const data = (await res.json().catch(() => ({}))) as { error?: string };
    goToLogin();
    throw new ApiError(data.error || 'Log in first.', 401);
  }
  if (res.status === 204) return undefined as T;
  const data = (await res.json().catch(() => ({}))) as { error?: string; problems?: string[] };
  if (!res.ok)
    throw new ApiError(data.error || `${res.status} ${res.statusText}`, res.status, data.problems ?? []);
  return data as T;
}

export const api = {
  get: <T>(path: string) => request<T>('GET', path),
  send: <T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown) =>
    request<T>(
      method,
      path,
      body === undefined ? undefined : JSON.stringify(body),
      body === undefined ? {} : { 'Content-Type': 'application/json' },
    ),
  session: () => request<Session>('GET', '/api/session'),
  /** Raw bytes as the body (no multipart parsing on the server); the name travels URI-encoded. */
  upload: (file: File) =>
    request<Upload>('POST', '/api/uploads', file, {
      'Content-Type': file.type || 'application/octet-stream',
      'X-File-Name': encodeURIComponent(file.name),
    }),
};
