/**
 * Sharding for large installs (Discord requires it above 2,500 guilds per connection). Run
 * `npx tsx adapters/discord/shard.ts [--shards N]` instead of `npm start`: discord.js's
 * ShardingManager forks one Scout process per shard (each runs src/main.ts, whose client picks its
 * shard from the environment the manager sets). Shared state — settings, history, thread
 * ownership, steps for Show/Hide, locks — is in the store, so use `STORE_URL=redis://…`.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Shard, ShardingManager } from 'discord.js';
import { type Config, loadConfig } from '../../src/config/env.js';
import { ConfigError } from '../../src/errors.js';
import { createLogger, type Logger } from '../../src/logger.js';

/** The entry each shard process runs: the normal composition root. */
export const SHARD_ENTRY = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
/** Variables removed from shard processes: only the Discord surface runs there (Slack would start N times). */
const NON_DISCORD_SURFACE_VARS = ['SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN', 'SLACK_SIGNING_SECRET'];

export interface ShardManagerOptions {
  /** Total shards; 'auto' asks Discord for its recommendation. */
  totalShards?: number | 'auto';
  file?: string;
}

export function createShardManager(
  config: Config,
  logger: Logger,
  options: ShardManagerOptions = {},
): ShardingManager {
  const token = config.env.DISCORD_TOKEN;
  if (!token) throw new ConfigError(['DISCORD_TOKEN: required to run Discord shards']);
  const manager = new ShardingManager(options.file ?? SHARD_ENTRY, {
    token,
    totalShards: options.totalShards ?? 'auto',
    mode: 'process',
    respawn: true,
    // The shard processes run TypeScript sources through tsx, like `npm start`.
    execArgv: ['--import', 'tsx'],
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
  const logger = createLogger({ level: config.env.LOG_LEVEL });
  const manager = createShardManager(config, logger, { totalShards: parseShards(process.argv.slice(2)) });
  await manager.spawn();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err instanceof ConfigError ? err.problems.join('\n') : err);
    process.exit(1);
  });
}
