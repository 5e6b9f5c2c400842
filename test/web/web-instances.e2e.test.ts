// biome-ignore-all lint/suspicious/noExplicitAny: the API's JSON is read as the page reads it, untyped
/**
 * Two Scout instances on one Redis, each with its web chat, as behind a load balancer: a browser's
 * stream on one instance shows the turn running on the other, and Stop pressed on one stops it there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebSurface, type WebSurface } from '../../adapters/web/web-surface.js';
import { silentLogger } from '../../src/logger.js';
import { createStores } from '../../src/store/create-stores.js';
import type { Stores } from '../../src/store/types.js';
import { type FakeOpenAI, startFakeOpenAI, textReply } from '../helpers/fake-openai-server.js';
import { startTestScout, type TestScout } from '../helpers/scout-harness.js';
import { foldTurn, stubAssetsDir, turnDone, WebClient } from '../helpers/web-client.js';
import { randomPrefix } from '../store/store-suite.js';

const redisUrl = process.env.REDIS_URL;

describe.skipIf(!redisUrl)('the web chat on two instances sharing Redis', () => {
  const namespacePrefix = randomPrefix();
  let llm: FakeOpenAI;
  const stores: Stores[] = [];
  const scouts: TestScout[] = [];
  const webs: WebSurface[] = [];
  const origins: string[] = [];

  beforeAll(async () => {
    llm = await startFakeOpenAI();
    for (let i = 0; i < 2; i++) {
      const store = await createStores({
        url: redisUrl as string,
        sessionTtlMs: 60_000,
        logger: silentLogger,
        namespacePrefix,
      });
      stores.push(store);
      const scout = await startTestScout({ stores: store, llm, env: { STORE_URL: redisUrl as string } });
      scouts.push(scout);
      const web = createWebSurface({
        core: scout.scout,
        config: scout.config,
        logger: silentLogger,
        stores: store,
        assetsDir: stubAssetsDir(),
      });
      await web.start();
      webs.push(web);
      origins.push(`http://127.0.0.1:${web.address()?.port}`);
    }
  });

  afterAll(async () => {
    for (const web of webs) await web.stop();
    for (const scout of scouts) await scout.close();
    for (const store of stores) await store.close();
    await llm?.close();
  });

  /** One browser: its cookie works on either instance (the session secret is shared through Redis). */
  async function browser(): Promise<{ a: WebClient; b: WebClient; id: string }> {
    const a = new WebClient(origins[0] as string);
    await a.login();
    const b = new WebClient(origins[1] as string);
    b.cookies = a.cookies;
    await b.login();
    const id = (await a.json('POST', '/api/conversations', {})).id as string;
    return { a, b, id };
  }

  it('a stream on one instance shows the turn the other runs, token by token, to its end', async () => {
    const { a, b, id } = await browser();
    const stream = await b.stream(id);
    await stream.until((e) => e.event === 'snapshot');
    llm.enqueue(textReply('Served by the other instance.', { pieces: 5, chunkDelayMs: 40 }));
    expect(
      (await a.request('POST', `/api/conversations/${id}/messages`, { text: 'Where are you?' })).status,
    ).toBe(202);
    await stream.until(turnDone);
    expect(stream.events.some((e) => e.event === 'user' && e.data.entry.text === 'Where are you?')).toBe(
      true,
    );
    const turn = foldTurn(stream.events);
    expect(turn.answer).toBe('Served by the other instance.');
    expect(turn.done).toBe(true);
    stream.close();
  });

  it('opened on the other instance mid-turn, the page gets the whole turn so far, then the rest', async () => {
    const { a, b, id } = await browser();
    const here = await a.stream(id);
    // The answer stops halfway (chunk 4 of 9: role, six pieces, finish, usage) until the other
    // instance's page has the running turn, so "mid-turn" holds however slowly the machine runs.
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const reply = textReply('one two three four five six', { pieces: 6 });
    reply.holdAt = { index: 4, until: released };
    llm.enqueue(reply);
    await a.request('POST', `/api/conversations/${id}/messages`, { text: 'Count' });
    await here.until((e) => e.event === 'patch' && typeof e.data.append === 'string');
    const there = await b.stream(id);
    try {
      // The whole turn so far: in the snapshot, or sent whole by the running instance after hello.
      await there.until((e) => (e.event === 'snapshot' || e.event === 'turn') && e.data.turn?.done === false);
      const sofar = foldTurn(there.events);
      expect(sofar.answer).not.toBe('');
      expect('one two three four five six'.startsWith(sofar.answer)).toBe(true);
    } finally {
      release();
    }
    await there.until(turnDone);
    expect(foldTurn(there.events).answer).toBe('one two three four five six');
    here.close();
    there.close();
  });

  it('Stop pressed on one instance stops the turn running on the other', async () => {
    const { a, b, id } = await browser();
    const stream = await b.stream(id);
    llm.enqueue(textReply('a b c d e f g h i j k l', { pieces: 12, chunkDelayMs: 300 }));
    await a.request('POST', `/api/conversations/${id}/messages`, { text: 'Slowly, please' });
    await stream.until((e) => e.event === 'patch' && typeof e.data.append === 'string');
    expect((await b.json('POST', `/api/conversations/${id}/stop`, {})).stopped).toBe(true);
    await stream.until(turnDone);
    expect(foldTurn(stream.events).cancelled).toBe(true);
    stream.close();
  });
});
