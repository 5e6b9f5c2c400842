/**
 * The few HTTP chores every route of the web surface shares: JSON replies, size-capped bodies, the
 * security headers, and errors as a sentence for the user (never a stack trace).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { phrase, type UserText } from '../../src/i18n/phrase.js';
import { type Locale, toLocale } from '../../src/i18n/locale.js';
import { say } from '../../src/i18n/say.js';

/** A JSON request body larger than this is refused (a question is at most a few thousand characters). */
export const MAX_JSON_BODY_BYTES = 256 * 1024;

/** A request the user can fix: its status and a sentence for them (said in their language when sent). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly text: UserText,
    /** What exactly is wrong, one line each (a form's fields). */
    readonly problems?: readonly UserText[],
  ) {
    super(typeof text === 'string' ? text : 'key' in text ? text.key : 'web error');
  }
}

/**
 * The page loads only what it serves itself: no inline script or style, no other origin, never framed.
 * `img-src data:` lets an answer show an image the page itself made; nothing from the web.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function securityHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

export function sendError(res: ServerResponse, err: HttpError, locale: Locale): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, err.status, {
    error: say(locale, err.text),
    ...(err.problems ? { problems: err.problems.map((problem) => say(locale, problem)) } : {}),
  });
}

/** The language a browser asks for (its first Accept-Language), else BOT_LOCALE. */
export function requestLocale(req: IncomingMessage, fallback: Locale): Locale {
  const first = String(req.headers['accept-language'] ?? '')
    .split(',')[0]
    ?.trim();
  return toLocale(first, fallback);
}

/** Reads the whole body, refusing (413) past `maxBytes` without buffering the rest. */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      req.resume();
      throw tooLarge(maxBytes);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, phrase('web.error.too-large', { size: formatBytes(maxBytes) }));
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}

/** A JSON object body, or a 400/415 that says what is wrong. */
export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const type = String(req.headers['content-type'] ?? '');
  if (!type.toLowerCase().startsWith('application/json')) {
    throw new HttpError(415, phrase('web.error.json-type'));
  }
  const body = await readBody(req, MAX_JSON_BODY_BYTES);
  let value: unknown;
  try {
    value = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
  } catch {
    throw new HttpError(400, phrase('web.error.json-invalid'));
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new HttpError(400, phrase('web.error.json-object'));
  }
  return value as Record<string, unknown>;
}

/** One cookie from the Cookie header, or undefined. */
export function readCookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}
