import { describe, expect, it } from 'vitest';
import { createShardManager, SHARD_ENTRY } from '../../adapters/discord/shard.js';
import { loadConfig } from '../../src/config/env.js';
import { silentLogger } from '../../src/logger.js';

describe('Discord sharding entry', () => {
  it('forks src/main.ts per shard with only the Discord surface and its own ops port', () => {
    const config = loadConfig({
      OPENAI_API_KEY: 'sk-test',
      DISCORD_TOKEN: 'fake-discord-token',
      SLACK_BOT_TOKEN: 'xoxb-fake',
      SLACK_APP_TOKEN: 'xapp-fake',
      STORE_URL: 'redis://127.0.0.1:6379',
      PORT: '3100',
    });
    const manager = createShardManager(config, silentLogger, { totalShards: 2 });
    expect(manager.file).toBe(SHARD_ENTRY);
    expect(SHARD_ENTRY).toMatch(/src[\\/]main\.ts$/);
    expect(manager.totalShards).toBe(2);
    const shard = manager.createShard(1); // emits shardCreate without spawning
    const env = shard.env as NodeJS.ProcessEnv;
    expect(env.PORT).toBe('3101');
    expect(env.SLACK_BOT_TOKEN).toBeUndefined();
    expect(String(env.SHARDS)).toBe('1');
    expect(String(env.SHARD_COUNT)).toBe('2');
  });

  it('refuses to start without DISCORD_TOKEN', () => {
    const config = loadConfig({ OPENAI_API_KEY: 'sk-test' });
    expect(() => createShardManager(config, silentLogger)).toThrow(/DISCORD_TOKEN/);
  });
});
