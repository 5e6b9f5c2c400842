/**
 * The conversation summary lives in the conversation's record: the same on every backend, kept by
 * later turns, gone with the conversation's TTL, /reset and a channel clear, and there after a restart.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/llm/types.js';
import { silentLogger } from '../../src/logger.js';
import {
  type ConversationSummary,
  appendTurn,
  clearChannelConversations,
  clearConversation,
} from '../../src/store/conversation-store.js';
import { clearSummary, loadConversation, saveFold } from '../../src/store/conversation-summary.js';
import { createStores } from '../../src/store/create-stores.js';
import type { Stores } from '../../src/store/types.js';
import { randomPrefix, ttlClock } from './store-suite.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'scout-summary-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
const redisUrl = process.env.REDIS_URL;
const prefix = randomPrefix();

const backends: [string, () => Promise<Stores>][] = [
  ['memory', () => createStores({ url: 'memory://', sessionTtlMs: 60_000, logger: silentLogger })],
  [
    'sqlite',
    () =>
      createStores({
        url: `sqlite://${path.join(dir, 'scout.sqlite')}`,
        sessionTtlMs: 60_000,
        logger: silentLogger,
      }),
  ],
  ...(redisUrl
    ? [
        [
          'redis',
          () =>
            createStores({
              url: redisUrl,
              sessionTtlMs: 60_000,
              logger: silentLogger,
              namespacePrefix: prefix,
            }),
        ] as [string, () => Promise<Stores>],
      ]
    : []),
];
if (!redisUrl) console.log('conversation summary: redis case skipped (REDIS_URL unset)');

const turn = (n: number): ChatMessage[] => [
  { role: 'user', content: `question ${n} — 问题 ${n}` },
  { role: 'assistant', content: `answer ${n}` },
];
const summary = (text: string, messages: number): ConversationSummary => ({
  text,
  messages,
  tokens: 42,
  updatedAt: 1_777_000_000_000,
});

describe.each(backends)('conversation summary on %s', (backend, open) => {
  let stores: Stores;
  afterEach(async () => {
    await stores?.conversations.clear().catch(() => {});
    await stores?.close();
  });

  it('replaces the folded turns, is kept by later turns, and clears apart from them', async () => {
    stores = await open();
    const id = `${backend}:conv`;
    for (const n of [1, 2, 3]) await appendTurn(stores, id, 'chan', turn(n), 60_000);
    await saveFold(stores, id, summary('- 预算 17500 EUR, code BLUEBIRD-42', 4), 4, 60_000);
    expect(await loadConversation(stores, id)).toEqual({
      messages: turn(3),
      summary: summary('- 预算 17500 EUR, code BLUEBIRD-42', 4),
    });
    await appendTurn(stores, id, 'chan', turn(4), 60_000);
    const after = await loadConversation(stores, id);
    expect(after.messages).toEqual([...turn(3), ...turn(4)]);
    expect(after.summary?.text).toBe('- 预算 17500 EUR, code BLUEBIRD-42');

    expect(await clearSummary(stores, id, 60_000)).toBe(true);
    expect(await loadConversation(stores, id)).toEqual({ messages: [...turn(3), ...turn(4)] });
    expect(await clearSummary(stores, id, 60_000)).toBe(false);

    await saveFold(stores, id, summary('again', 2), 2, 60_000);
    await clearConversation(stores, id);
    expect(await loadConversation(stores, id)).toEqual({ messages: [] });
    // A fold for a conversation cleared meanwhile writes nothing back.
    await saveFold(stores, id, summary('late', 2), 2, 60_000);
    expect(await stores.conversations.get(id)).toBeUndefined();
  });

  it('goes with a channel clear (mode or model switch) and with the TTL', async () => {
    stores = await open();
    const id = `${backend}:chan-conv`;
    await appendTurn(stores, id, 'chan-2', turn(1), 60_000);
    await saveFold(stores, id, summary('s', 2), 0, 60_000);
    await clearChannelConversations(stores, 'chan-2');
    expect(await loadConversation(stores, id)).toEqual({ messages: [] });

    const short = `${backend}:ttl`;
    const ttl = ttlClock(backend);
    await ttl.during(async (pass) => {
      await appendTurn(stores, short, 'chan-3', turn(1), 60_000);
      await saveFold(stores, short, summary('s', 0), 0, ttl.ttlMs);
      expect((await loadConversation(stores, short)).summary?.text).toBe('s');
      await pass(ttl.ttlMs + 100);
      expect(await loadConversation(stores, short)).toEqual({ messages: [] });
    });
  });

  it.skipIf(backend === 'memory')('is there after a restart', async () => {
    stores = await open();
    const id = `${backend}:restart`;
    await appendTurn(stores, id, 'chan-4', [...turn(1), ...turn(2)], 60_000);
    await saveFold(stores, id, summary('- kept across restarts', 2), 2, 60_000);
    await stores.close();
    stores = await open();
    expect(await loadConversation(stores, id)).toEqual({
      messages: turn(2),
      summary: summary('- kept across restarts', 2),
    });
  });
});
