/**
 * Issue 58 item 3, Discord: two Scout instances of one bot (same token, one shard each, as the
 * sharding manager runs them) on one Redis, against a fake Discord that enforces the bot's global
 * limit — 50 REST calls in any second for the token, whichever instance makes them — as Discord does
 * (429 with `global: true`). 16 long answers at once across 16 channels on both shards: each
 * channel's own limit leaves far more room than the global one, so the global window is what binds.
 * Each instance alone keeps to the whole limit (discord.js holds a process to 50 a second), so
 * together they went over it; sharing the budget through Redis — every message write, and each
 * turn's thread and typing indicator — Discord refuses nothing and every answer ends complete.
 *
 * The limit stays on Discord's own time base (a second), unlike the channels' shrunk one: discord.js's
 * own limiter counts real seconds, so a shrunk window would be bound by it, not by the shared budget.
 * Skipped without REDIS_URL.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordSurface, type DiscordSurface } from '../../adapters/discord/discord-surface.js';
import {
  DISCORD_CHANNEL_LIMITS,
  DISCORD_GLOBAL_LIMIT,
  EDIT_INTERVAL_MS as DISCORD_EDIT_INTERVAL_MS,
} from '../../adapters/discord/turn-sink.js';
import { silentLogger } from '../../src/logger.js';
import { createStores } from '../../src/store/create-stores.js';
import type { Stores } from '../../src/store/types.js';
import { mostInWindow, scaledChannelLimits } from '../helpers/channel-limits.js';
import { FakeDiscord, nextSnowflake, shardOf } from '../helpers/fake-discord.js';
import { type FakeOpenAI, startFakeOpenAI, textReply } from '../helpers/fake-openai-server.js';
import { type FakeSearchServer, startFakeSearchServer } from '../helpers/fake-search-server.js';
import { startTestScout, type TestScout } from '../helpers/scout-harness.js';
import { deleteNamespace } from './scale-kit.js';

/** Discord's global limit per bot, on Discord's own time base (discord.js's own limiter uses it too). */
const DISCORD_GLOBAL = { max: 50, perMs: 1_000 };
/** Edits every 100 ms and each channel's limits shrunk with them: 5 writes per 500 ms per channel. */
const EDIT_INTERVAL_MS = 100;
const CHANNEL_LIMITS = scaledChannelLimits(
  DISCORD_CHANNEL_LIMITS,
  EDIT_INTERVAL_MS / DISCORD_EDIT_INTERVAL_MS,
);
const SHARDS = 2;
/** 16 channels of 10 writes a second each: 160 a second wanted, 45 a second granted. */
const CHANNELS = 16;
/** About 6,000 characters: three or four answer messages of Discord's 2,000 each. */
const PARAGRAPHS = 40;
const SESSION_TTL_MS = 10 * 60_000;
/** Only a bound on a hang: the test asserts that every answer ends complete, not how fast. */
const FINAL_TIMEOUT_MS = 60_000;
/** Each asker's id (one asker per channel: a person may run only MAX_TURNS_PER_USER turns at once). */
const userId = (i: number) => String(1033044521375764530n + BigInt(i));

const ANSWER = Array.from(
  { length: PARAGRAPHS },
  (_, i) =>
    `Paragraph ${i}: ${'the global limit counts every call of the bot, wherever it runs. '.repeat(2)}`,
).join('\n\n');

/** One Scout process: its own Redis connection, core and Discord client (one shard of two). */
interface Instance {
  readonly stores: Stores;
  readonly h: TestScout;
  readonly surface: DiscordSurface;
  /** Message posts and edits this instance made. */
  writes(): number;
}

interface World {
  fake: FakeDiscord;
  llm: FakeOpenAI;
  search: FakeSearchServer;
  instances: Instance[];
  namespacePrefix: string;
}

let world: World | undefined;
afterEach(async () => {
  const w = world;
  world = undefined;
  if (!w) return;
  await Promise.allSettled(w.instances.map((i) => i.surface.stop()));
  await Promise.allSettled(w.instances.map((i) => i.h.close()));
  await Promise.allSettled(w.instances.map((i) => i.stores.close()));
  await deleteNamespace(process.env.REDIS_URL!, w.namespacePrefix);
  await Promise.all([w.fake.close(), w.llm.close(), w.search.close()]);
});

/** A server id whose events go to `shard` of `SHARDS`. */
function guildOnShard(shard: number): string {
  for (;;) {
    const id = nextSnowflake();
    if (shardOf(id, SHARDS) === shard) return id;
  }
}

/**
 * Builds what `build` builds in the environment the sharding manager gives process `shard` of
 * `SHARDS`: discord.js's client reads its shard from SHARDS / SHARD_COUNT when it is constructed.
 */
function asShard<T>(shard: number, build: () => T): T {
  const saved = { SHARDS: process.env.SHARDS, SHARD_COUNT: process.env.SHARD_COUNT };
  process.env.SHARDS = String(shard);
  process.env.SHARD_COUNT = String(SHARDS);
  try {
    return build();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/**
 * The fake Discord (the global limit on), the fake model, and `SHARDS` Scout instances on one Redis
 * namespace, instance `n` identifying as shard `n`, as `adapters/discord/shard.ts` forks them (the
 * sharding manager hands each process its shard in SHARDS / SHARD_COUNT).
 */
async function startWorld(): Promise<World & { channels: { id: string; guildId: string }[] }> {
  const url = process.env.REDIS_URL!;
  const namespacePrefix = `scout-test-${Math.random().toString(36).slice(2, 10)}`;
  const guilds = Array.from({ length: SHARDS }, (_, shard) => guildOnShard(shard));
  const fake = await FakeDiscord.start({
    guildId: guilds[0]!,
    otherGuildIds: guilds.slice(1),
    globalLimit: DISCORD_GLOBAL,
  });
  const channels = Array.from({ length: CHANNELS }, (_, i) => ({
    id: nextSnowflake(),
    guildId: guilds[i % SHARDS]!,
  }));
  for (const [i, c] of channels.entries()) {
    fake.addChannel({
      id: c.id,
      type: 0,
      guild_id: c.guildId,
      name: `pace-${i}`,
      position: i,
      permission_overwrites: [],
    });
  }
  const llm = await startFakeOpenAI();
  const search = await startFakeSearchServer();
  const w: World = { fake, llm, search, instances: [], namespacePrefix };
  world = w;
  for (let shard = 0; shard < SHARDS; shard++) {
    const stores = await createStores({
      url,
      sessionTtlMs: SESSION_TTL_MS,
      logger: silentLogger,
      namespacePrefix,
    });
    expect(await stores.ping(), `Redis at REDIS_URL (${url}) must answer`).toBe(true);
    const h = await startTestScout({
      stores,
      llm,
      search,
      env: { DISCORD_TOKEN: 'fake-discord-token', DISCORD_API_URL: fake.apiUrl, STORE_URL: url },
    });
    let writes = 0;
    const surface = asShard(shard, () =>
      createDiscordSurface({
        core: h.scout,
        config: h.config,
        logger: silentLogger,
        stores,
        editIntervalMs: EDIT_INTERVAL_MS,
        channelLimits: CHANNEL_LIMITS,
        globalLimit: DISCORD_GLOBAL_LIMIT,
        onEdit: () => {
          writes += 1;
        },
      }),
    );
    w.instances.push({ stores, h, surface, writes: () => writes });
    await surface.start();
  }
  return { ...w, channels };
}

/** A person mentions the bot in `channel` (a new message, its thread then Scout's). */
function mention(fake: FakeDiscord, channel: { id: string; guildId: string }, i: number) {
  const id = nextSnowflake();
  fake.post({
    id,
    type: 0,
    channel_id: channel.id,
    guild_id: channel.guildId,
    channel_type: 0,
    content: `<@${fake.botId}> how does the global limit work (${i})?`,
    author: {
      id: userId(i),
      username: 'testuser',
      discriminator: '0',
      global_name: 'Test User',
      avatar: null,
    },
    member: { roles: [], joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0 },
    mentions: [{ ...fake.botUser }],
    mention_roles: [],
    mention_everyone: false,
    attachments: [],
    embeds: [],
    components: [],
    flags: 0,
    pinned: false,
    tts: false,
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
  });
  return id;
}

/** Why the answer in `thread` is not final yet, as a reader sees it (undefined once it is). */
function notFinal(fake: FakeDiscord, thread: string): string | undefined {
  const messages = fake.messagesIn(thread);
  if (messages.length === 0) return 'no answer yet';
  if (messages.some((m) => JSON.stringify(m.components).includes('scout_stop')))
    return 'a Stop button is shown';
  const last = messages.at(-1)!;
  if (!JSON.stringify(last.components).includes('scout_feedback')) return 'no 👍/👎 on the last message';
  const text = messages.map((m) => m.content).join('\n');
  let from = 0;
  for (let i = 0; i < PARAGRAPHS; i++) {
    const at = text.indexOf(`Paragraph ${i}:`, from);
    if (at === -1) return `paragraph ${i} is missing`;
    from = at;
  }
  if (!last.content.includes(`Paragraph ${PARAGRAPHS - 1}:`))
    return 'the last message is not the answer’s end';
  return undefined;
}

describe.skipIf(!process.env.REDIS_URL)(
  'scale-out: two Discord shards pace one bot’s global limit together',
  () => {
    it('16 long answers on two shards at once: Discord refuses no call with its global 429, every answer ends complete', async () => {
      const w = await startWorld();
      w.llm.fallback = () => textReply(ANSWER, { pieces: 60, chunkDelayMs: 40 });
      const threads = w.channels.map((c, i) => ({ ...c, thread: mention(w.fake, c, i) }));

      const pending = () =>
        threads.flatMap(({ thread }) => {
          const why = notFinal(w.fake, thread);
          return why ? [`${thread}: ${why}`] : [];
        });
      await w.fake
        .waitFor(() => pending().length === 0, FINAL_TIMEOUT_MS, 'every answer final')
        .catch(() => undefined);
      expect(pending()).toEqual([]);

      const accepted = w.fake.calls.filter((c) => c.status !== 429).map((c) => c.at);
      const summary = `${w.fake.calls.length} calls, at most ${mostInWindow(accepted, DISCORD_GLOBAL.perMs)} in a second`;
      // The global window is what bound: the bot's calls came near Discord's 50 in some second.
      expect(mostInWindow(accepted, DISCORD_GLOBAL.perMs), summary).toBeGreaterThanOrEqual(40);
      expect(
        w.fake.globalRefusals.map((c) => `${c.route} at ${c.at}`),
        summary,
      ).toEqual([]);
      // Each shard's instance wrote its own servers' answers (at least one write per message there).
      for (const [shard, instance] of w.instances.entries()) {
        const mine = threads.filter((t) => shardOf(t.guildId, SHARDS) === shard);
        const messages = mine.reduce((n, t) => n + w.fake.messagesIn(t.thread).length, 0);
        expect(mine.length).toBe(CHANNELS / SHARDS);
        expect(instance.writes(), `instance ${shard}`).toBeGreaterThanOrEqual(messages);
      }
      expect(w.fake.violations).toEqual([]);
    }, 120_000);
  },
);
