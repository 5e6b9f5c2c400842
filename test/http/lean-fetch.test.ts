/**
 * The Slack Web API client over `leanFetch` (as slack-surface.ts builds it) against the fake Slack
 * Web API, and the fetch behaviours such a client relies on, against a plain local server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leanFetch, leanFetchWithin } from '../../src/http/lean-fetch.js';
import { type FakeSlackApi, startFakeSlackApi } from '../helpers/fake-slack-api.js';

describe('the Slack Web API client over leanFetch', () => {
  let slack: FakeSlackApi;
  beforeAll(async () => {
    slack = await startFakeSlackApi();
  });
  afterAll(() => slack.close());

  const client = (options: { rejectRateLimitedCalls?: boolean } = {}) =>
    new WebClient('xoxb-test-token', {
      slackApiUrl: slack.url,
      fetch: leanFetch,
      retryConfig: { retries: 0 },
      ...options,
    });

  it('posts and edits a message Slack then shows, with blocks sent as JSON', async () => {
    const web = client();
    const posted = await web.chat.postMessage({
      channel: 'C0LEANFETCH',
      text: 'hello',
      blocks: [{ type: 'markdown', text: 'hello *there*' }],
    });
    expect(posted.ok).toBe(true);
    await web.chat.update({ channel: 'C0LEANFETCH', ts: posted.ts!, text: 'edited', blocks: [] });
    const [message] = slack.messagesIn('C0LEANFETCH');
    expect(message?.text).toBe('edited');
    expect(slack.callsTo('chat.postMessage').at(-1)?.args.blocks).toEqual([
      { type: 'markdown', text: 'hello *there*' },
    ]);
  });

  it("returns Slack's error code as the client's platform error", async () => {
    await expect(
      client().chat.update({ channel: 'C0LEANFETCH', ts: '1.000404', text: 'x' }),
    ).rejects.toMatchObject({ code: 'slack_webapi_platform_error', data: { error: 'message_not_found' } });
  });

  it('reads Retry-After on HTTP 429 as a rate limit', async () => {
    slack.rateLimit('chat.postMessage', 1, 7);
    await expect(
      client({ rejectRateLimitedCalls: true }).chat.postMessage({ channel: 'C0LEANFETCH', text: 'x' }),
    ).rejects.toMatchObject({ code: 'slack_webapi_rate_limited_error', retryAfter: 7 });
  });

  it('treats HTTP 503 as a failed request the client reports with its status', async () => {
    slack.failNext('chat.postMessage', 1, 503);
    await expect(client().chat.postMessage({ channel: 'C0LEANFETCH', text: 'x' })).rejects.toMatchObject({
      code: 'slack_webapi_http_error',
      statusCode: 503,
    });
  });
});

describe('leanFetch', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => {
        body += d;
      });
      req.on('end', () => {
        if (req.url === '/redirect') {
          res.writeHead(302, { location: '/elsewhere' }).end();
          return;
        }
        if (req.url === '/slow') return; // never answers
        if (req.url === '/stalls') {
          // Headers and half a body, then silence.
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '20' });
          res.write('{"ok":');
          return;
        }
        if (req.url === '/cut') {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '20' });
          res.write('{"ok":', () => res.destroy());
          return;
        }
        res.writeHead(201, { 'content-type': 'application/json', 'x-multi': ['a', 'b'] });
        res.end(
          `\uFEFF${JSON.stringify({ method: req.method, body, type: req.headers['content-type'] ?? null })}`,
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('answers like fetch: status, headers, a body readable as text, JSON or bytes', async () => {
    const init = {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'ping',
      redirect: 'error',
    } as const;
    const lean = await leanFetch(`${base}/x`, init);
    const real = await fetch(`${base}/x`, init);
    expect([lean.status, lean.ok, lean.statusText, lean.url]).toEqual([
      real.status,
      real.ok,
      real.statusText,
      real.url,
    ]);
    expect(lean.headers.get('X-Multi')).toBe(real.headers.get('x-multi'));
    expect(lean.headers.get('absent')).toBeNull();
    // Date is the server's clock at each answer, and the two requests may straddle a second.
    const withoutDate = (headers: Headers) =>
      Object.fromEntries([...headers].filter(([name]) => name !== 'date'));
    expect(withoutDate(lean.headers)).toEqual(withoutDate(real.headers));
    expect(lean.headers.get('date')).toMatch(/GMT$/);
    expect(await lean.text()).toBe(await real.text());
    expect(await lean.json()).toEqual({ method: 'POST', body: 'ping', type: 'text/plain' });
    expect(new TextDecoder().decode(await lean.arrayBuffer())).toContain('"body":"ping"');
  });

  it('sends URLSearchParams as a form body', async () => {
    const res = await leanFetch(`${base}/x`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ a: '1 2', b: 'é' }),
      redirect: 'error',
    });
    expect(await res.json()).toMatchObject({ body: 'a=1+2&b=%C3%A9' });
  });

  it('refuses a redirect when told to, as fetch does', async () => {
    await expect(leanFetch(`${base}/redirect`, { redirect: 'error' })).rejects.toThrow(TypeError);
    await expect(fetch(`${base}/redirect`, { redirect: 'error' })).rejects.toThrow(TypeError);
  });

  it('follows redirects through the global fetch when asked to', async () => {
    const res = await leanFetch(`${base}/redirect`);
    expect(res.status).toBe(201);
    expect(res.redirected).toBe(true);
  });

  it("rejects with the signal's reason once aborted", async () => {
    const signal = AbortSignal.timeout(50);
    await expect(leanFetch(`${base}/slow`, { redirect: 'error', signal })).rejects.toMatchObject({
      name: 'TimeoutError',
    });
  });

  it('gives up on a server that sends nothing within the time limit, as a failed fetch', async () => {
    const failure = await leanFetchWithin(200)(`${base}/slow`, { redirect: 'error' }).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(TypeError);
    // The server never answers: only this call's own 200 ms limit ends it (its cause says which).
    expect((failure as Error).cause).toMatchObject({
      code: 'ETIMEDOUT',
      message: 'no answer from the server within 200 ms',
    });
    // A call the short path does not take (redirects followed) gets the same limit.
    await expect(leanFetchWithin(200)(`${base}/slow`)).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('gives up on a body that stops coming within the time limit', async () => {
    const failure = await leanFetchWithin(200)(`${base}/stalls`, { redirect: 'error' }).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as Error).cause).toMatchObject({
      code: 'ETIMEDOUT',
      message: 'no answer from the server within 200 ms',
    });
  });

  it('fails like fetch when the connection drops mid-body, instead of answering half a body', async () => {
    const failure = await leanFetch(`${base}/cut`, { redirect: 'error' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as Error).message).toBe('fetch failed');
  });

  it('fails like fetch when nothing listens', async () => {
    const failure = await leanFetch('http://127.0.0.1:1/', { redirect: 'error' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as Error).message).toBe('fetch failed');
    expect((failure as Error).cause).toBeInstanceOf(Error);
  });
});
