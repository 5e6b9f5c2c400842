/**
 * Sharding for large installs (Discord requires it above 2,500 guilds per connection). Run
 * `npx tsx adapters/discord/shard.ts [--shards N]` (compiled: `node dist/adapters/discord/shard.js`)
 * instead of `npm start`: discord.js's ShardingManager forks one Scout process per shard (each runs
 * the composition root, whose client picks its shard from the environment the manager sets). Shared
 * state — settings, history, thread ownership, steps for Show/Hide, locks — is in the store, so use
 * `STORE_URL=redis://…`.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Shard, ShardingManager } from 'discord.js';
import { type Config, loadConfig } from '../../src/config/env.js';
import { ConfigError } from '../../src/errors.js';
import { createLogger, type Logger, secretsOf } from '../../src/logger.js';

export interface ShardEntry {
  /** The composition root each shard process runs. */
  file: string;
  /** Node flags for the shard processes. */
  execArgv: string[];
}

/**
 * The entry each shard process runs: the normal composition root, in the form this file runs in.
 * Compiled (`dist/adapters/discord/shard.js`, what the Docker image has) it forks the compiled
 * `dist/src/main.js` with plain node; from sources it forks `src/main.ts` through tsx, like `npm start`.
 */
export function shardEntry(moduleUrl: string = import.meta.url): ShardEntry {
  const compiled = new URL(moduleUrl).pathname.endsWith('.js');
  return {
    file: fileURLToPath(new URL(compiled ? '../../src/main.js' : '../../src/main.ts', moduleUrl)),
    execArgv: compiled ? [] : ['--import', 'tsx'],
  };
}

export const SHARD_ENTRY = shardEntry().file;
/** Variables removed from shard processes: only the Discord surface runs there (Slack would start N times). */
const NON_DISCORD_SURFACE_VARS = ['SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN', 'SLACK_SIGNING_SECRET'];

export interface ShardManagerOptions {
  /** Total shards; 'auto' asks Discord for its recommendation. */
  totalShards?: number | 'auto';
  /** Overrides the entry (default: `shardEntry()` for the form this file runs in). */
  entry?: ShardEntry;
}

export function createShardManager(
  config: Config,
  logger: Logger,
  options: ShardManagerOptions = {},
): ShardingManager {
  const token = config.env.DISCORD_TOKEN;
  if (!token) throw new ConfigError(['DISCORD_TOKEN: required to run Discord shards']);
  const entry = options.entry ?? shardEntry();
  const manager = new ShardingManager(entry.file, {
    token,
    totalShards: options.totalShards ?? 'auto',
    mode: 'process',
    respawn: true,
    execArgv: entry.execArgv,
  });
  manager.on('shardCreate', (shard: Shard) => {
    // `env` is typed unknown but is the plain object handed to child_process.fork.
    const env = shard.env as NodeJS.ProcessEnv;
    for (const name of NON_DISCORD_SURFACE_VARS) delete env[name];
    // Each process serves /healthz and /metrics on its own port: PORT, PORT+1, …
    if (config.env.PORT > 0) env.PORT = String(config.env.PORT + shard.id);
    shard.on('death', () => logger.warn({ shard: shard.id }, 'discord shard process exited; respawning'));
    logger.info({ shard: shard.id, total: manager.totalShards }, 'discord shard started');
  });
  return manager;
}

function parseShards(argv: string[]): number | 'auto' {
  const index = argv.indexOf('--shards');
  const value = index >= 0 ? argv[index + 1] : undefined;
  if (value === undefined || value === 'auto') return 'auto';
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1)
    throw new ConfigError(['--shards: must be a positive whole number or "auto"']);
  return count;
}

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ level: config.env.LOG_LEVEL, secrets: secretsOf(config.env) });
  const manager = createShardManager(config, logger, { totalShards: parseShards(process.argv.slice(2)) });
  await manager.spawn();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err instanceof ConfigError ? err.problems.join('\n') : err);
    process.exit(1);
  });
}
