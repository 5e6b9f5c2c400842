/**
 * A stand-in for the web server, for tests of the page alone: it serves a fresh build of the page
 * (dist/web's files, built into a temporary folder) with the real Content-Security-Policy, and an
 * event stream per conversation that the test writes to. The JSON API is answered in the browser
 * with page.route (mockApi), so each test says what the server returns.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page, Request, Route } from 'playwright-core';
import { expect } from 'vitest';
import { buildWeb } from '../../scripts/build-web.mjs';

/** The policy PROTOCOL.md gives the page. */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "font-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export interface PageServer {
  origin: string;
  /** Sends one event to every stream open on the conversation. */
  push(conversationId: string, event: string, data: unknown): void;
  /** Streams open now, per conversation id. */
  openStreams(conversationId: string): number;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

/** Builds the page once into a temporary folder and serves it on loopback. */
export async function startPageServer(): Promise<PageServer> {
  const dir = mkdtempSync(join(tmpdir(), 'scout-web-'));
  await buildWeb({ outdir: dir, minify: true });
  const streams = new Map<string, Set<ServerResponse>>();
  let nextId = 1;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const events = /^\/api\/conversations\/([^/]+)\/events$/.exec(url.pathname);
    if (events) {
      const id = decodeURIComponent(events[1]!);
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
      res.write(': open\n\n');
      const set = streams.get(id) ?? new Set<ServerResponse>();
      streams.set(id, set);
      set.add(res);
      req.on('close', () => set.delete(res));
      return;
    }
    const file =
      url.pathname === '/' || url.pathname === '/login'
        ? url.pathname === '/'
          ? 'index.html'
          : 'login.html'
        : /^\/assets\/([\w.-]+)$/.exec(url.pathname)?.[1];
    if (!file) {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"not here"}');
      return;
    }
    let body: Buffer;
    try {
      body = readFileSync(join(dir, file));
    } catch {
      res.writeHead(404).end();
      return;
    }
    const ext = file.slice(file.lastIndexOf('.'));
    res.writeHead(200, {
      'Content-Type': TYPES[ext] ?? 'application/octet-stream',
      'Content-Security-Policy': PAGE_CSP,
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    push(conversationId, event, data) {
      const frame = `id: ${nextId++}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
      for (const res of streams.get(conversationId) ?? []) res.write(frame);
    },
    openStreams: (id) => streams.get(id)?.size ?? 0,
    async close() {
      for (const set of streams.values()) for (const res of set) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface ApiCall {
  method: string;
  path: string;
  body: unknown;
  headers: Record<string, string>;
}

export type ApiHandler = (call: ApiCall) => { status?: number; json?: unknown } | undefined;

/**
 * Answers /api/* (except event streams) in the browser: `handler` first, then defaults for a
 * logged-in user with one conversation list. Every call is recorded, for assertions.
 */
export async function mockApi(page: Page, handler: ApiHandler = () => undefined): Promise<ApiCall[]> {
  const calls: ApiCall[] = [];
  await page.route(/\/api\/(?!conversations\/[^/]+\/events)/, async (route: Route, request: Request) => {
    const url = new URL(request.url());
    let body: unknown = request.postData();
    try {
      body = body ? JSON.parse(body as string) : undefined;
    } catch {
      /* raw upload bytes */
    }
    const call: ApiCall = {
      method: request.method(),
      path: url.pathname,
      body,
      headers: await request.allHeaders(),
    };
    calls.push(call);
    const answer = handler(call) ?? defaults(call);
    if (answer.status === 204) return route.fulfill({ status: 204 });
    await route.fulfill({
      status: answer.status ?? 200,
      contentType: 'application/json',
      body: JSON.stringify(answer.json ?? {}),
    });
  });
  return calls;
}

export const SESSION = {
  user: { id: 'u1', name: 'Ada' },
  csrf: 'csrf-token-1',
  locale: 'en',
  auth: 'none',
  models: ['deepseek/deepseek-chat', 'openai/gpt-4o-mini'],
  starters: ['What is new in Node 22?', 'Plan a weekend in Lisbon'],
  maxUploadBytes: 1_000_000,
  version: '0.1.0',
};

export const SETTINGS = {
  mode: 'chat',
  search: true,
  toolModel: { model: 'deepseek/deepseek-chat', temperature: 0.7, maxTokens: 2048 },
  answerModel: null,
};

function defaults(call: ApiCall): { status?: number; json?: unknown } {
  if (call.path === '/api/session') return { json: SESSION };
  if (call.path === '/api/settings')
    return call.method === 'GET' ? { json: SETTINGS } : { json: { settings: call.body } };
  if (call.path === '/api/conversations' && call.method === 'GET')
    return {
      json: {
        conversations: [
          { id: 'c1', title: 'Rust vs Go', updatedAt: 1 },
          { id: 'c2', title: '', updatedAt: 0 },
        ],
      },
    };
  if (call.path === '/api/conversations' && call.method === 'POST')
    return { status: 201, json: { id: 'c-new', title: '', updatedAt: 2 } };
  const one = /^\/api\/conversations\/([^/]+)$/.exec(call.path);
  if (one && call.method === 'GET') return { json: { id: one[1], title: '', entries: [], turn: null } };
  if (one && call.method === 'DELETE') return { status: 204 };
  if (one && call.method === 'PATCH')
    return { json: { id: one[1], title: (call.body as { title: string }).title, updatedAt: 3 } };
  if (call.path.endsWith('/messages')) return { status: 202, json: { accepted: true } };
  if (call.path.endsWith('/stop')) return { json: { stopped: true } };
  if (call.path.endsWith('/confirm')) return { json: { ok: true } };
  if (call.path === '/api/uploads') return { status: 201, json: { id: 'up1', name: 'notes.txt', size: 5 } };
  return { status: 404, json: { error: 'not mocked' } };
}

/** The Settings dialog's controls, by the accessible names the issue's contract gives them. */
export const SETTINGS_LABELS = [
  'Mode',
  'Web search',
  'Function-call model',
  'Answer model',
  'Temperature',
  'Max tokens',
  'Top p',
  'Thinking budget',
] as const;

/** Each contract label names exactly one control of the dialog (exact: "Mode" is in "…model" too). */
export async function expectSettingsLabels(dialog: Locator): Promise<void> {
  for (const label of SETTINGS_LABELS) {
    expect(await dialog.getByLabel(label, { exact: true }).count(), label).toBe(1);
  }
}
