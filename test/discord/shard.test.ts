import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createShardManager, SHARD_ENTRY, shardEntry } from '../../adapters/discord/shard.js';
import { loadConfig } from '../../src/config/env.js';
import { silentLogger } from '../../src/logger.js';

/** The flags the manager forks shards with (set at runtime; discord.js's typings leave it out). */
const execArgvOf = (manager: object) => (manager as { execArgv?: string[] }).execArgv;

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

  it('forks the compiled dist/src/main.js with plain node when it runs compiled (the Docker image)', () => {
    // A compiled tree like the image's: the manager checks that the entry exists.
    const root = mkdtempSync(path.join(tmpdir(), 'scout-shard-'));
    mkdirSync(path.join(root, 'dist/src'), { recursive: true });
    writeFileSync(path.join(root, 'dist/src/main.js'), '');
    const compiled = shardEntry(pathToFileURL(path.join(root, 'dist/adapters/discord/shard.js')).href);
    expect(compiled.file).toBe(path.join(root, 'dist/src/main.js'));
    expect(compiled.execArgv).toEqual([]);
    const sources = shardEntry(pathToFileURL('/work/scout/adapters/discord/shard.ts').href);
    expect(sources.file).toBe(path.normalize('/work/scout/src/main.ts'));
    expect(sources.execArgv).toEqual(['--import', 'tsx']);

    const config = loadConfig({ OPENAI_API_KEY: 'sk-test', DISCORD_TOKEN: 'fake-discord-token' });
    const manager = createShardManager(config, silentLogger, { totalShards: 1, entry: compiled });
    expect(manager.file).toBe(compiled.file);
    expect(execArgvOf(manager)).toEqual([]);
    // Under vitest this file runs from sources: the default is the tsx form.
    expect(execArgvOf(createShardManager(config, silentLogger, { totalShards: 1 }))).toEqual([
      '--import',
      'tsx',
    ]);
    rmSync(root, { recursive: true, force: true });
  });

  it('refuses to start without DISCORD_TOKEN', () => {
    const config = loadConfig({ OPENAI_API_KEY: 'sk-test' });
    expect(() => createShardManager(config, silentLogger)).toThrow(/DISCORD_TOKEN/);
  });
});
