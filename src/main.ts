/**
 * Composition root: reads configuration, builds the core, and starts the surfaces whose tokens are
 * present (any combination; none → the terminal chat). Everything past the configuration is loaded
 * by dynamic import, when needed: `--help` and `--check` never load the core, the terminal never
 * loads discord.js, Bolt or prom-client, and start-up stays short (see docs/performance.md).
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { BUILT_IN_TOOL_NAMES, loadConfig, type Config } from './config/env.js';
import type { Scout } from './core/scout.js';
import { ConfigError } from './errors.js';
import type { Logger } from './logger.js';
import type { ScoutMetrics } from './ops/metrics.js';
import type { IdleMemory } from './ops/idle-memory.js';
import { tracingEnabled } from './ops/tracing/enabled.js';
import type { Tracing } from './ops/tracing/start-tracing.js';
// Tiny and dependency-free: the readiness registry and what registers into it.
import { Readiness } from './ops/readiness.js';
import { storeCheck } from './ops/store-check.js';
import { SurfaceConnection } from './ops/surface-connection.js';
import { mcpSecrets } from './mcp/mcp-config.js';
import type { Surface } from './surface.js';

const USAGE = `Usage: npm start [-- options]

  (no options)        run the bot: Slack and/or Discord when their tokens are set, the web chat when
                      WEB_PORT is set, else the terminal chat
  --once "question"   answer one message in the terminal and exit: 0 answered and saved, 1 failed,
                      2 partial (cut short by an error or Stop) or not saved; errors go to stderr.
                      From npm: npm start --silent -- --once "…" keeps npm's banner off stdout
  --yes               with --once: run tools that change something without asking (else refused)
  --check             validate the configuration, start each MCP server once, and exit
                      (non-zero with one line per problem)
  --check --probe     also make one tiny call to each configured model and search provider
  --conversation ID   terminal chat: continue the conversation with this id
  --read FILE|URL…    print what fetch_url hands the model for each page, file or PDF (its header,
                      Markdown and 8,000-character budget; "==> NAME <==" before each when several);
                      URLs pass the same address guard and caps. Needs no key: nothing is answered.
                      Exit 1 when any could not be read (one line each on stderr)
  --focus "…"         with --read: keep the passages most relevant to this, as fetch_url's focus
  --part N            with --read: read part N of a long document in order
  --help              show this help
`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    options: {
      once: { type: 'string' },
      check: { type: 'boolean', default: false },
      yes: { type: 'boolean', default: false },
      probe: { type: 'boolean', default: false },
      conversation: { type: 'string' },
      help: { type: 'boolean', default: false },
      read: { type: 'boolean', default: false },
      focus: { type: 'string' },
      part: { type: 'string' },
    },
    // The files and URLs of --read; nothing else takes positionals.
    allowPositionals: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (values.read || values.focus !== undefined || values.part !== undefined || positionals.length > 0) {
    // Reads without configuration: no model key, no store, no platform token.
    const misuse = !values.read
      ? positionals.length > 0
        ? `Unexpected argument '${positionals[0]}': files and URLs go after --read`
        : '--focus and --part go with --read'
      : values.once !== undefined || values.check
        ? '--read cannot be combined with --once or --check'
        : undefined;
    if (misuse) {
      process.stderr.write(`${misuse} (see --help)\n`);
      return 1;
    }
    const { runRead } = await import('./cli/read-command.js');
    return runRead(
      {
        targets: positionals,
        ...(values.focus !== undefined ? { focus: values.focus } : {}),
        ...(values.part !== undefined ? { part: values.part } : {}),
      },
      process.stdout,
      process.stderr,
    );
  }
  // A .env file next to the process is read the way most bots' users expect (Node ≥ 20.12).
  if (existsSync('.env')) process.loadEnvFile('.env');

  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(
      `Scout cannot start — configuration problems:\n${err.problems.map((p) => `  • ${p}`).join('\n')}\n\nSee .env.example for every variable (cp .env.example .env).\n`,
    );
    return 1;
  }
  if (values.check) {
    const surfaces = Object.entries(config.surfaces)
      .filter(([, on]) => on)
      .map(([name]) => name);
    process.stdout.write(
      `Configuration OK: model ${config.toolModel.provider}/${config.toolModel.model}` +
        `${config.answerModel ? `, answer model ${config.answerModel.provider}/${config.answerModel.model}` : ''}` +
        `, mode ${config.env.DEFAULT_MODE}, store ${config.env.STORE_URL.split('://')[0]}, surfaces: ${surfaces.join(', ')}\n`,
    );
    let ok = true;
    if (config.mcpServers.length > 0) {
      const { checkMcpServers } = await import('./mcp/check-mcp.js');
      const mcp = await checkMcpServers(config.mcpServers, {
        maxTools: config.env.AGENT_MAX_TOOLS,
        allow: config.env.AGENT_TOOLS,
        builtInTools: BUILT_IN_TOOL_NAMES,
      });
      process.stdout.write(mcp.lines.map((line) => `${line}\n`).join(''));
      ok = mcp.ok;
    }
    if (values.probe) {
      const { probeConfig } = await import('./config/probe.js');
      const results = await probeConfig(config);
      for (const result of results) process.stdout.write(`${result.line}\n`);
      ok = ok && results.every((r) => r.ok);
    }
    return ok ? 0 : 1;
  }

  const consoleOnly = values.once !== undefined || config.surfaces.console;
  const webWithTerminal =
    config.surfaces.web && !config.surfaces.slack && !config.surfaces.discord && Boolean(process.stdin.isTTY);
  // In the terminal chat, logs would interleave with answers: only warnings, on stderr.
  const explicitLevel = process.env.LOG_LEVEL !== undefined;
  const level =
    (consoleOnly || webWithTerminal) && !explicitLevel
      ? values.once !== undefined
        ? 'silent'
        : 'warn'
      : config.env.LOG_LEVEL;
  const tracingOn = tracingEnabled(config.env);
  const [logger, { buildScout }] = await Promise.all([
    // A silent logger needs no pino (and its loading time): `--once`, or LOG_LEVEL=silent.
    level === 'silent'
      ? import('./silent-logger.js').then((m) => m.silentLogger)
      : import('./logger.js').then(({ createLogger, secretsOf }) =>
          createLogger({
            level,
            pretty: consoleOnly || webWithTerminal || undefined,
            secrets: [...secretsOf(config.env), ...mcpSecrets(config.mcpServers)],
          }),
        ),
    import('./core/build-scout.js'),
  ]);
  // Metrics only where someone can scrape them: the terminal chat has no ops server.
  const metrics = consoleOnly ? undefined : (await import('./ops/metrics.js')).createMetrics();
  const observe = metrics ? (await import('./ops/instrumentation.js')).instrumentation(metrics) : {};
  // Traces only when an OTLP endpoint is set: the OpenTelemetry SDK is not even loaded otherwise.
  const tracing = tracingOn
    ? await (await import('./ops/tracing/start-tracing.js')).startTracing(config, logger)
    : undefined;
  const hooks = tracing ? tracing.instrument(observe) : observe;
  // The heap's slack given back when idle, where V8 does not (Node 24; src/ops/idle-memory.ts).
  const idle =
    values.once === undefined ? (await import('./ops/idle-memory.js')).idleMemory(logger) : undefined;
  if (idle)
    hooks.observer = hooks.observer
      ? (await import('./ops/tracing/combine-observers.js')).combineObservers(hooks.observer, idle.observer)
      : idle.observer;
  const scout = await buildScout({ config, logger, ...hooks });

  if (values.once !== undefined) {
    const { runOnce } = await import('../adapters/console/console-surface.js');
    const code = await runOnce(
      scout,
      values.once,
      process.stdout,
      values.conversation,
      process.stderr,
      values.yes,
    );
    await scout.shutdown(0);
    await tracing?.shutdown();
    await scout.stores.close();
    return code;
  }
  return runServer(config, scout, logger, metrics, values.conversation, tracing, idle);
}

/** Past the grace period plus this, a shutdown that still hangs (a stuck store close) is forced. */
const FORCE_EXIT_MARGIN_MS = 10_000;

async function runServer(
  config: Config,
  scout: Scout,
  logger: Logger,
  metrics: ScoutMetrics | undefined,
  conversation?: string,
  tracing?: Tracing,
  idle?: IdleMemory,
): Promise<number> {
  // One stray rejection (an SDK's background call, a handler that forgot a catch) must not take
  // every other conversation down with it: log it, count it, keep serving.
  process.on('unhandledRejection', (reason) => {
    logger.error({ err: reason }, 'unhandled promise rejection');
    metrics?.recordError('unhandled');
  });
  const surfaces: Surface[] = [];
  // The web chat alone: a person at a terminal also gets the terminal chat; without a TTY (a service,
  // a container) Scout serves the page until SIGTERM.
  const terminalChat =
    config.surfaces.console ||
    (config.surfaces.web &&
      !config.surfaces.slack &&
      !config.surfaces.discord &&
      Boolean(process.stdin.isTTY));
  /** The terminal chat's exit code (piped input: 0 when every question was answered). */
  let exitCode = 0;
  let finished: () => void = () => {};
  const exited = new Promise<void>((resolve) => {
    finished = resolve;
  });
  // /readyz (= /healthz) answers 200 only when every registered part is ready: the store and each
  // platform surface's connection (registered below); /livez only says the process runs.
  const readiness = new Readiness();
  readiness.register('store', storeCheck(scout.stores));
  const connectionOf = (surface: 'slack' | 'discord') => {
    const connection = new SurfaceConnection(surface, metrics);
    readiness.register(surface, connection.check);
    return connection;
  };
  // The ops endpoints on PORT. In Slack HTTP mode Bolt's receiver owns PORT, so they ride along as
  // its custom routes; otherwise our own small server serves them.
  const slackHttp = config.surfaces.slack && !config.env.SLACK_APP_TOKEN;
  const opsRoutes =
    metrics && slackHttp
      ? (await import('./ops/ops-endpoints.js')).createOpsEndpoints({ readiness, metrics, logger })
      : undefined;
  if (config.surfaces.slack) {
    // Before Bolt loads (it loads with the surface): Bolt would load Socket Mode's client even in
    // HTTP mode, and with it undici and Node's fetch (13-16 MiB resident).
    (await import('../adapters/slack/defer-socket-mode.js')).deferSocketMode();
    const { createSlackSurface } = await import('../adapters/slack/slack-surface.js');
    const routes = opsRoutes ? { routes: opsRoutes.routes } : {};
    const onEdit = metrics ? () => metrics.recordEdit('slack') : undefined;
    const connection = connectionOf('slack');
    surfaces.push(
      createSlackSurface({
        core: scout,
        config,
        logger,
        stores: scout.stores,
        onEdit,
        connection,
        ...routes,
      }),
    );
  }
  if (config.surfaces.discord) {
    const { createDiscordSurface } = await import('../adapters/discord/discord-surface.js');
    const onEdit = metrics ? () => metrics.recordEdit('discord') : undefined;
    const connection = connectionOf('discord');
    surfaces.push(
      createDiscordSurface({ core: scout, config, logger, stores: scout.stores, onEdit, connection }),
    );
  }
  if (config.surfaces.web) {
    const { createWebSurface } = await import('../adapters/web/web-surface.js');
    surfaces.push(createWebSurface({ core: scout, config, logger, stores: scout.stores }));
  }
  if (terminalChat) {
    const { createConsoleSurface } = await import('../adapters/console/console-surface.js');
    const onExit = (code: number) => {
      exitCode = code;
      finished();
    };
    surfaces.push(createConsoleSurface({ core: scout, conversation, onExit }));
  }
  const opsServer =
    metrics && !slackHttp
      ? await (await import('./ops/http-server.js')).startOpsServer({
          port: config.env.PORT,
          readiness,
          metrics,
          logger,
        })
      : undefined;
  for (const surface of surfaces) {
    await surface.start();
    logger.info({ surface: surface.name }, 'surface started');
  }
  idle?.started();

  // Stopped once: by the signal handler, or after the terminal chat quits.
  let stopping: Promise<unknown> | undefined;
  const stopSurfaces = () => (stopping ??= Promise.allSettled(surfaces.map((s) => s.stop())));
  const shutdown = async (signal: string) => {
    logger.info(
      { signal, graceMs: config.env.SHUTDOWN_GRACE_MS },
      'shutting down: no new messages, finishing running turns',
    );
    setTimeout(() => {
      logger.error('shutdown did not finish in time: exiting');
      process.exit(1);
    }, config.env.SHUTDOWN_GRACE_MS + FORCE_EXIT_MARGIN_MS).unref();
    (opsServer ?? opsRoutes)?.markDraining();
    idle?.stop();
    await stopSurfaces();
    // Turns still running after the grace period are cancelled and end as "Stopped".
    await scout.shutdown(config.env.SHUTDOWN_GRACE_MS);
    finished();
  };
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    // A second signal means "now": skip the grace period.
    if (signalled) {
      logger.warn({ signal }, 'second signal during shutdown: exiting now');
      process.exit(1);
    }
    signalled = true;
    void shutdown(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  await exited;
  if (terminalChat) await scout.shutdown(config.env.SHUTDOWN_GRACE_MS);
  await stopSurfaces();
  // The last turns' spans, flushed (bounded) once no turn runs.
  await tracing?.shutdown();
  await opsServer?.close();
  await scout.stores.close();
  logger.info('stopped');
  return exitCode;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `Scout stopped with an error: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    process.exit(1);
  },
);
