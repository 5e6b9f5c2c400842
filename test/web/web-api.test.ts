// biome-ignore-all lint/suspicious/noExplicitAny: the API's JSON is read as the page reads it, untyped
/**
 * The web chat's API driven as the page drives it (session, CSRF header, event stream), against the
 * real core and the loopback fake model: what a browser user sees, and what the model is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebSurface, type WebSurface } from '../../adapters/web/web-surface.js';
import { checkConfig, type Config } from '../../src/config/env.js';
import { startTestScout, type TestScout } from '../helpers/scout-harness.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { foldTurn, stubAssetsDir, turnDone, WebClient } from '../helpers/web-client.js';

let h: TestScout;
let web: WebSurface;
let origin: string;

async function startWeb(config: Config): Promise<{ web: WebSurface; origin: string }> {
  const surface = createWebSurface({
    core: h.scout,
    config,
    logger: h.config && silent,
    stores: h.stores,
    assetsDir: stubAssetsDir(),
  });
  await surface.start();
  const address = surface.address();
  if (!address) throw new Error('not listening');
  return { web: surface, origin: `http://127.0.0.1:${address.port}` };
}

const silent = (await import('../../src/logger.js')).silentLogger;

beforeAll(async () => {
  h = await startTestScout();
  ({ web, origin } = await startWeb(h.config));
});

afterAll(async () => {
  await web?.stop();
  await h?.close();
});

async function newChat(client: WebClient): Promise<string> {
  const created = await client.json('POST', '/api/conversations', {});
  return created.id as string;
}

describe('the web chat API', () => {
  it('streams a chat turn to the browser, stores it, and titles the conversation from the question', async () => {
    const alice = new WebClient(origin);
    await alice.login();
    const id = await newChat(alice);
    const stream = await alice.stream(id);
    await stream.until((e) => e.event === 'snapshot');
    h.llm.enqueue(textReply('Paris is the capital of France.', { pieces: 6 }));
    const sent = await alice.request('POST', `/api/conversations/${id}/messages`, {
      text: 'What is the capital of France?',
    });
    expect(sent.status).toBe(202);
    await stream.until(turnDone);
    const turn = foldTurn(stream.events);
    expect(turn.answer).toContain('Paris is the capital of France.');
    expect(turn.done).toBe(true);
    expect(turn.footer).toMatch(/tok/);
    stream.close();
    const list = await alice.json('GET', '/api/conversations');
    expect(list.conversations[0]).toMatchObject({ id, title: 'What is the capital of France?' });
    const stored = await alice.json('GET', `/api/conversations/${id}`);
    expect(stored.entries.map((e: any) => e.kind)).toEqual(['user', 'turn']);
    expect(stored.entries[1].turn.answer).toContain('Paris');
  });

  it('deleting a conversation removes it from the list and what the model remembers of it', async () => {
    const alice = new WebClient(origin);
    await alice.login();
    const id = await newChat(alice);
    const stream = await alice.stream(id);
    h.llm.enqueue(textReply('Noted: your locker code is 4711.'));
    await alice.request('POST', `/api/conversations/${id}/messages`, {
      text: 'Remember my locker code 4711',
    });
    await stream.until(turnDone);
    stream.close();
    const user = (await alice.json('GET', '/api/session')).user.id as string;
    const remembered = async () =>
      String(JSON.stringify(await h.stores.conversations.get(`web:${user}:${id}`)));
    // The history is written as the turn ends, just after the page was told.
    await expect.poll(remembered).toContain('4711');
    expect((await alice.request('DELETE', `/api/conversations/${id}`)).status).toBe(204);
    expect((await alice.json('GET', '/api/conversations')).conversations.map((c: any) => c.id)).not.toContain(
      id,
    );
    expect((await alice.request('GET', `/api/conversations/${id}`)).status).toBe(404);
    expect(await remembered()).not.toContain('4711');
  });

  it('a second browser sees none of the first one’s conversations', async () => {
    const alice = new WebClient(origin);
    await alice.login();
    const id = await newChat(alice);
    const bob = new WebClient(origin);
    await bob.login();
    expect((await bob.json('GET', '/api/conversations')).conversations).toEqual([]);
    expect((await bob.request('GET', `/api/conversations/${id}`)).status).toBe(404);
    expect((await bob.request('GET', `/api/conversations/${id}/events`)).status).toBe(404);
    expect((await bob.request('POST', `/api/conversations/${id}/messages`, { text: 'hi' })).status).toBe(404);
  });

  it('refuses a change without the CSRF token or from another site, with a JSON sentence', async () => {
    const alice = new WebClient(origin);
    await alice.login();
    const noToken = await alice.request('POST', '/api/conversations', {}, { 'x-csrf-token': 'wrong' });
    expect(noToken.status).toBe(403);
    expect(((await noToken.json()) as { error: string }).error).toMatch(/security token/);
    const crossSite = await alice.request(
      'POST',
      '/api/conversations',
      {},
      { origin: 'https://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    expect((await alice.json('GET', '/api/conversations')).conversations).toEqual([]);
  });

  it('answers bad requests with a clear 4xx and no stack trace', async () => {
    const alice = new WebClient(origin);
    await alice.login();
    const id = await newChat(alice);
    const badJson = await alice.request('POST', `/api/conversations/${id}/messages`, undefined, {
      'content-type': 'application/json',
    });
    expect([400]).toContain(badJson.status);
    const notJson = await fetch(`${origin}/api/conversations/${id}/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-csrf-token': alice.csrf,
        cookie: [...alice.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
      body: '{"text": ',
    });
    expect(notJson.status).toBe(400);
    const body = await notJson.text();
    expect(body).toContain('not valid JSON');
    expect(body).not.toMatch(/at .*\.ts:\d+/);
    const huge = await alice.request('POST', `/api/conversations/${id}/messages`, {
      text: 'x'.repeat(300_000),
    });
    expect(huge.status).toBe(413);
    expect((await alice.request('GET', '/api/nothing')).status).toBe(404);
    // Said in the browser's language, like the rest of Scout.
    const chinese = await alice.request(
      'POST',
      `/api/conversations/${id}/messages`,
      { text: '' },
      { 'accept-language': 'zh-CN,zh;q=0.9' },
    );
    expect(chinese.status).toBe(400);
    expect(((await chinese.json()) as { error: string }).error).toBe('请先输入问题。');
  });

  it('Stop cancels the running turn, and the page is told it stopped', async () => {
    const alice = new WebClient(origin);
    await alice.login();
    const id = await newChat(alice);
    const stream = await alice.stream(id);
    h.llm.enqueue(
      textReply('one two three four five six seven eight nine ten', { pieces: 10, chunkDelayMs: 400 }),
    );
    await alice.request('POST', `/api/conversations/${id}/messages`, { text: 'Count slowly' });
    await stream.until((e) => e.event === 'patch' && typeof e.data.append === 'string');
    const stop = await alice.json('POST', `/api/conversations/${id}/stop`, {});
    expect(stop.stopped).toBe(true);
    await stream.until(turnDone);
    expect(foldTurn(stream.events).cancelled).toBe(true);
    stream.close();
  });

  it('a dropped stream resumes the running answer where it was (Last-Event-ID), without a snapshot', async () => {
    const alice = new WebClient(origin);
    await alice.login();
    const id = await newChat(alice);
    const first = await alice.stream(id);
    h.llm.enqueue(textReply('alpha beta gamma delta epsilon zeta', { pieces: 6, chunkDelayMs: 150 }));
    await alice.request('POST', `/api/conversations/${id}/messages`, { text: 'Greek letters?' });
    const seen = await first.until((e) => e.event === 'patch' && typeof e.data.append === 'string');
    first.close();
    const again = await alice.stream(id, seen.id);
    await again.until(turnDone);
    expect(again.events.some((e) => e.event === 'snapshot')).toBe(false);
    // What the page had before the drop, plus what it was sent after: the whole answer, once.
    const upToDrop = first.events.slice(0, first.events.indexOf(seen) + 1);
    expect(foldTurn([...upToDrop, ...again.events]).answer).toBe('alpha beta gamma delta epsilon zeta');
    again.close();
  });

  it('a turn nobody watches still finishes and is stored; a later visit gets a snapshot with it', async () => {
    const alice = new WebClient(origin);
    await alice.login();
    const id = await newChat(alice);
    h.llm.enqueue(textReply('Answered while you were away.'));
    await alice.request('POST', `/api/conversations/${id}/messages`, { text: 'Are you there?' });
    const later = await alice.stream(id);
    await later.until((e) => e.event === 'snapshot' || turnDone(e));
    later.close();
    await expect
      .poll(async () => (await alice.json('GET', `/api/conversations/${id}`)).entries.at(-1)?.turn?.answer)
      .toContain('Answered while you were away.');
  });

  it('settings are validated like /model, and the next turn uses them', async () => {
    const alice = new WebClient(origin);
    await alice.login();
    const before = await alice.json('GET', '/api/settings');
    const bad = await alice.request('PUT', '/api/settings', {
      ...before,
      toolModel: { ...before.toolModel, temperature: 7 },
    });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(await bad.json())).toMatch(/temperature/i);
    const smuggled = await alice.request('PUT', '/api/settings', {
      ...before,
      toolModel: { model: 'openai/x temperature=9' },
    });
    expect(smuggled.status).toBe(422);
    const saved = await alice.json('PUT', '/api/settings', {
      ...before,
      toolModel: { ...before.toolModel, temperature: 0.2, maxTokens: 321 },
    });
    expect(saved.settings.toolModel).toMatchObject({ temperature: 0.2, maxTokens: 321 });
    const id = await newChat(alice);
    const stream = await alice.stream(id);
    const asked = h.llm.requests.length;
    h.llm.enqueue(textReply('Cool and short.'));
    await alice.request('POST', `/api/conversations/${id}/messages`, { text: 'Hello' });
    await stream.until(turnDone);
    const request = h.llm.requests.slice(asked).at(-1)?.body as Record<string, unknown>;
    expect(request.temperature).toBe(0.2);
    expect(request.max_tokens ?? request.max_completion_tokens).toBe(321);
    stream.close();
  });

  it('a slash command typed in the box is answered as a reply event', async () => {
    const alice = new WebClient(origin);
    await alice.login();
    const id = await newChat(alice);
    const stream = await alice.stream(id);
    await alice.request('POST', `/api/conversations/${id}/messages`, { text: '/mode agent' });
    const reply = await stream.until((e) => e.event === 'reply');
    expect(reply.data.entry.text).toMatch(/agent/i);
    expect((await alice.json('GET', '/api/settings')).mode).toBe('agent');
    await alice.json('PUT', '/api/settings', { mode: 'chat' });
    stream.close();
  });

  it('an uploaded text file reaches the model through the context pipeline', async () => {
    const alice = new WebClient(origin);
    await alice.login();
    const id = await newChat(alice);
    const stream = await alice.stream(id);
    const upload = await alice.request(
      'POST',
      '/api/uploads',
      new TextEncoder().encode('The launch code word is BLUEBIRD.'),
      {
        'content-type': 'text/plain',
        'x-file-name': encodeURIComponent('../notes <b>.txt'),
      },
    );
    expect(upload.status).toBe(201);
    const file = (await upload.json()) as { id: string; name: string };
    expect(file.name).toBe('notes <b>.txt');
    const asked = h.llm.requests.length;
    h.llm.enqueue(textReply('It is BLUEBIRD.'));
    await alice.request('POST', `/api/conversations/${id}/messages`, {
      text: 'What is the code word?',
      files: [file.id],
    });
    await stream.until(turnDone);
    expect(JSON.stringify(h.llm.requests.slice(asked).at(-1)?.body)).toContain('BLUEBIRD');
    // Each upload is sent once: naming it again is a clear error.
    const again = await alice.request('POST', `/api/conversations/${id}/messages`, {
      text: 'again',
      files: [file.id],
    });
    expect(again.status).toBe(400);
    stream.close();
  });
});

describe('who may use the web chat', () => {
  it('refuses to start beyond loopback without a login, naming the variables', () => {
    const { problems } = checkConfig({ ...envOf(h.config), WEB_PORT: '8080', WEB_HOST: '0.0.0.0' });
    expect(problems.join('\n')).toMatch(/WEB_PASSWORD, WEB_AUTH_HEADER or WEB_OIDC_ISSUER/);
    const header = checkConfig({
      ...envOf(h.config),
      WEB_PORT: '8080',
      WEB_HOST: '0.0.0.0',
      WEB_AUTH_HEADER: 'X-User',
    });
    expect(header.problems.join('\n')).toMatch(/WEB_TRUSTED_PROXIES/);
    const ok = checkConfig({
      ...envOf(h.config),
      WEB_PORT: '8080',
      WEB_HOST: '0.0.0.0',
      WEB_PASSWORD: 'hunter2-long',
    });
    expect(ok.problems).toEqual([]);
  });

  it('with WEB_PASSWORD, the API needs a login, a wrong password is refused, and the password is kept only hashed', async () => {
    const { config } = checkConfig({ ...envOf(h.config), WEB_PASSWORD: 'correct horse battery' });
    if (!config) throw new Error('config');
    const { web: locked, origin: lockedOrigin } = await startWeb(config);
    try {
      expect(config.env.WEB_PASSWORD).toBeUndefined();
      const visitor = new WebClient(lockedOrigin);
      expect((await visitor.request('GET', '/api/session')).status).toBe(401);
      const page = await visitor.request('GET', '/');
      expect(page.status).toBe(303);
      expect(page.headers.get('location')).toBe('/login');
      const form = await visitor.request('GET', '/login');
      const csrfOf = (html: string) => /value="([^"]+)"/.exec(html)?.[1] ?? '';
      const wrong = await fetchForm(visitor, {
        name: 'alice',
        password: 'wrong',
        csrf: csrfOf(await form.text()),
      });
      expect(wrong.status).toBe(401);
      const retry = await wrong.text();
      expect(retry).toContain('Wrong password.');
      const forged = await fetchForm(visitor, {
        name: 'alice',
        password: 'correct horse battery',
        csrf: 'forged',
      });
      expect(forged.status).toBe(403);
      const right = await fetchForm(visitor, {
        name: 'alice',
        password: 'correct horse battery',
        csrf: csrfOf(await forged.text()),
      });
      expect(right.status).toBe(303);
      const session = await visitor.login();
      expect(session.user.id).toBe('alice');
      expect(session.auth).toBe('password');
    } finally {
      await locked.stop();
    }
  });
});

async function fetchForm(client: WebClient, fields: Record<string, string>): Promise<Response> {
  const res = await fetch(`${client.origin}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    },
    body: new URLSearchParams(fields).toString(),
  });
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const eq = pair?.indexOf('=') ?? -1;
    if (pair && eq > 0) client.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return res;
}

/** The environment a config was loaded from, as strings again (enough for checkConfig). */
function envOf(config: Config): Record<string, string> {
  return {
    OPENAI_API_KEY: String(config.env.OPENAI_API_KEY),
    OPENAI_BASE_URL: String(config.env.OPENAI_BASE_URL),
    AGENT_FUNCTION_CALL_MODEL: 'openai/test-model',
    STORE_URL: 'memory://',
    LOG_LEVEL: 'silent',
    SEARCH_PROVIDER: 'none',
  };
}
