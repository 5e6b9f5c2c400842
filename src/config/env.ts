/**
 * One zod schema for the environment, parsed once at start-up. Every problem becomes one readable
 * line naming the variable (`loadConfig` throws a ConfigError with all of them).
 */
import { DEFAULT_MODELS } from '../llm/default-models.js';
import { ConfigError } from '../errors.js';
import { DEFAULT_DEEPSEEK_VARIANT, resolveDeepSeekVariant } from '../llm/deepseek-variants.js';
import { parseModelSpec } from '../llm/model-config.js';
import { loadMcpConfig, type McpServerConfig } from '../mcp/mcp-config.js';
import type { ModelConfig } from '../llm/types.js';
import * as z from '../schema/zod.js';
import { parseDuration } from './duration.js';
import { loadDefaultInstructions } from './instructions-default.js';

const bool = z.pipe(
  z._default(z.enum(['true', 'false', '1', '0', 'yes', 'no', '']), 'false'),
  z.transform((v) => v === 'true' || v === '1' || v === 'yes'),
);
const optionalString = z.pipe(
  z.optional(z.string()),
  z.transform((v) => (v && v.trim() !== '' ? v.trim() : undefined)),
);
const url = (fallback?: string) =>
  z
    .pipe(
      z.optional(z.string()),
      z.transform((v) => (v && v.trim() !== '' ? v.trim() : fallback)),
    )
    .check(z.refine((v) => v === undefined || /^https?:\/\//.test(v), 'must be an http(s) URL'));
/** A number within [min, max]: "must be a number", "must be a whole number", "must be between …". */
const number = (min: number, max: number, whole: boolean) => {
  const range = `must be between ${min} and ${max}`;
  return z.coerce
    .number({ error: 'must be a number' })
    .check(...(whole ? [z.int('must be a whole number')] : []), z.gte(min, range), z.lte(max, range));
};
const intIn = (fallback: number, min: number, max: number) => z._default(number(min, max, true), fallback);
/** "24h", "3m", "500ms", or a bare number of seconds (parseDuration), above zero. */
const duration = (fallback: string) =>
  z.pipe(
    z._default(z.string(), fallback),
    z.transform((v, ctx) => {
      const ms = parseDuration(v);
      if (ms === undefined || ms <= 0) {
        ctx.issues.push({
          code: 'custom',
          message: 'must be a duration such as 24h, 30m or 3600 (seconds)',
          input: v,
        });
        return z.NEVER;
      }
      return ms;
    }),
  );
const list = z.pipe(
  z.optional(z.string()),
  z.transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ),
);
/** A limit within [min, max], or unset (empty means unset too, as `.env.example` leaves it). */
const optionalLimit = (min: number, max: number, whole: boolean) =>
  z.pipe(
    z.transform((v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v)),
    z.optional(number(min, max, whole)),
  );
/** A string with a default, accepted when `valid` says so. */
const checkedString = (fallback: string, valid: (v: string) => boolean, message: string) =>
  z._default(z.string(), fallback).check(z.refine(valid, message));
/** One of `values`, `fallback` when unset. */
const oneOf = <const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) =>
  z._default(z.enum(values), fallback);

export const EnvSchema = z.object({
  // ── LLM providers ───────────────────────────────────────────────────────────
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: url(),
  DEEPSEEK_API_KEY: optionalString,
  DEEPSEEK_BASE_URL: url('https://api.deepseek.com'),
  DEEPSEEK_MODEL_VARIANT: checkedString(
    DEFAULT_DEEPSEEK_VARIANT,
    (v) => resolveDeepSeekVariant(v) !== undefined,
    'unknown DeepSeek model variant',
  ),
  ANTHROPIC_API_KEY: optionalString,
  ANTHROPIC_BASE_URL: url(),
  GEMINI_API_KEY: optionalString,
  GEMINI_BASE_URL: url('https://generativelanguage.googleapis.com/v1beta/openai/'),
  OPENAI_COMPATIBLE_BASE_URL: url(),
  OPENAI_COMPATIBLE_API_KEY: optionalString,
  OPENAI_COMPATIBLE_MODEL: optionalString,
  AGENT_FUNCTION_CALL_MODEL: optionalString,
  AGENT_ANSWER_MODEL: optionalString,
  /** Writes the summary of a long conversation's oldest turns; unset = the channel's function-call model. */
  SUMMARY_MODEL: optionalString,
  DEFAULT_TEMPERATURE: z._default(
    z.coerce
      .number({ error: 'must be a number' })
      .check(z.gte(0, 'must be at least 0'), z.lt(2, 'must be below 2')),
    0.7,
  ),
  // Unset: no max_tokens is sent (the server's own limit applies), except to Anthropic, which requires one.
  DEFAULT_MAX_TOKENS: z.pipe(
    z.transform((v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v)),
    z.optional(number(1, 1_000_000, true)),
  ),
  LLM_TIMEOUT_MS: intIn(30_000, 1_000, 600_000),
  LLM_MAX_RETRIES: intIn(3, 0, 10),
  /** Base delay of the exponential backoff; tests shrink it. */
  LLM_RETRY_BASE_MS: intIn(1_000, 1, 60_000),
  /** Context window used for trimming history (tokens). */
  LLM_CONTEXT_WINDOW: intIn(64_000, 1_000, 2_000_000),
  /** JSON: {"provider/model": {"input": usd per 1M, "output": usd per 1M}}; merged over the built-in table. */
  PRICE_TABLE: optionalString,

  // ── Modes ───────────────────────────────────────────────────────────────────
  DEFAULT_MODE: oneOf(['chat', 'agent', 'plan'], 'chat'),
  AGENT_MAX_ITERATIONS: intIn(5, 1, 10),
  AGENT_MAX_EXECUTION_TIME: intIn(60, 10, 300),
  AGENT_MIN_RESULT_CHARS: intIn(200, 0, 100_000),
  AGENT_MAX_TOOL_CALLS: intIn(10, 1, 50),
  /** Result pages the agent reads per search, in parallel, in the same round (0: snippets only). */
  AGENT_READ_RESULTS: intIn(2, 0, 5),
  /** Tools offered to the model per request (OpenAI refuses over 128); over it, the most relevant to the question. */
  AGENT_MAX_TOOLS: intIn(64, 1, 128),
  AGENT_VERBOSE: bool,
  /** Allow/deny list: "web_search,fetch_url" allows only those; "-fetch_url" denies one. */
  AGENT_TOOLS: list,
  PLAN_ON_STEP_ERROR: oneOf(['skip', 'stop'], 'skip'),
  /** fetch_url opens only URLs from the user's message or this turn's search (`provenance`), or any public URL (`open`). */
  FETCH_URL_POLICY: oneOf(['provenance', 'open'], 'provenance'),
  /** Path of an mcp.json (`{"mcpServers": {…}}`): each server's tools join the agent's. */
  MCP_CONFIG: optionalString,

  // ── Context: thread messages, images and files (src/context) ─────────────────
  /** `off` stops reading earlier thread/reply-chain messages and attachments. */
  THREAD_CONTEXT: oneOf(['on', 'off'], 'on'),
  /** Token budget for earlier messages and file text; unset = a quarter of LLM_CONTEXT_WINDOW, at most 16,000. */
  CONTEXT_MAX_TOKENS: z.optional(number(0, 1_000_000, true)),
  /** Images sent to a vision model per turn. */
  CONTEXT_MAX_IMAGES: intIn(4, 0, 20),
  /** Largest attachment Scout downloads (bytes). */
  CONTEXT_MAX_FILE_BYTES: intIn(20 * 1024 * 1024, 1_024, 200 * 1024 * 1024),

  // ── Web search ──────────────────────────────────────────────────────────────
  SEARCH_PROVIDER: oneOf(['tavily', 'brave', 'searxng', 'duckduckgo', 'none', 'auto'], 'auto'),
  TAVILY_API_KEY: optionalString,
  TAVILY_BASE_URL: url('https://api.tavily.com'),
  BRAVE_API_KEY: optionalString,
  BRAVE_BASE_URL: url('https://api.search.brave.com'),
  SEARXNG_URL: url(),
  DUCKDUCKGO_BASE_URL: url('https://html.duckduckgo.com'),
  SEARCH_TIMEOUT_MS: intIn(10_000, 500, 120_000),

  // ── Conversation and store ──────────────────────────────────────────────────
  STORE_URL: checkedString(
    'sqlite://data/scout.sqlite',
    (v) => /^(sqlite|memory|redis|rediss):\/\//.test(v),
    'must start with sqlite://, memory:// or redis://',
  ),
  SESSION_TTL: duration('24h'),
  BOT_LOCALE: oneOf(['en', 'zh'], 'en'),
  TIMEZONE: checkedString(
    'UTC',
    (tz) => {
      // The default needs no check, and the first Intl formatter of a process costs 30–100 ms (ICU).
      if (tz === 'UTC') return true;
      try {
        new Intl.DateTimeFormat('en', { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    },
    'unknown time zone',
  ),
  ALLOWED_CHANNELS: list,
  ADMIN_USERS: list,
  /** Default operator instructions for channels without their own `/instructions` (one of the two). */
  SCOUT_INSTRUCTIONS: optionalString,
  SCOUT_INSTRUCTIONS_FILE: optionalString,
  /** Access lists (src/core/allowed-channels.ts): platform user ids; BLOCKED_USERS wins. */
  ALLOWED_USERS: list,
  BLOCKED_USERS: list,
  /** Discord role ids: when set, only members with one of them (DMs need ALLOWED_USERS). */
  ALLOWED_ROLES: list,

  // ── Slack ───────────────────────────────────────────────────────────────────
  SLACK_BOT_TOKEN: optionalString,
  SLACK_APP_TOKEN: optionalString,
  SLACK_SIGNING_SECRET: optionalString,
  SLACK_API_URL: url('https://slack.com/api/'),
  /** Socket Mode connections kept open, so one can drop or be refreshed while another serves. */
  SLACK_SOCKET_CONNECTIONS: intIn(2, 1, 5),
  /** Socket Mode start-up gives up after this long without a connection (reconnects never do). */
  SLACK_STARTUP_TIMEOUT: duration('3m'),

  // ── Discord ─────────────────────────────────────────────────────────────────
  DISCORD_TOKEN: optionalString,
  DISCORD_GUILD_ID: optionalString,
  DISCORD_API_URL: url(),

  // ── Operations ──────────────────────────────────────────────────────────────
  PORT: intIn(3000, 0, 65_535),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  SHUTDOWN_GRACE_MS: intIn(25_000, 0, 600_000),

  // ── Limits and usage (src/budget) ───────────────────────────────────────────
  /** Daily (UTC) spend per person / per channel in USD, from the price table; unset: no limit. */
  BUDGET_USER_DAILY_USD: optionalLimit(0.01, 100_000, false),
  BUDGET_CHANNEL_DAILY_USD: optionalLimit(0.01, 100_000, false),
  /** Daily (UTC) tokens per person / per channel, every model (the only bound for models without a price). */
  BUDGET_USER_DAILY_TOKENS: optionalLimit(1_000, 10_000_000_000, true),
  BUDGET_CHANNEL_DAILY_TOKENS: optionalLimit(1_000, 10_000_000_000, true),
  /** Answers one person may have running at once, across instances; 0: no limit. */
  MAX_TURNS_PER_USER: intIn(2, 0, 100),
  /** ADMIN_USERS are not held to the limits above. */
  BUDGET_EXEMPT_ADMINS: z.pipe(
    z._default(z.enum(['true', 'false', '1', '0', 'yes', 'no', '']), 'true'),
    z.transform((v) => v === 'true' || v === '1' || v === 'yes' || v === ''),
  ),
  /** The store cannot be asked while a turn starts: `open` lets it run (a warning), `closed` refuses it. */
  BUDGET_FAIL_MODE: oneOf(['open', 'closed'], 'open'),
  // ── Traces (OpenTelemetry, src/ops/tracing; the exporter reads these itself) ─
  /** Switches tracing on: the OTLP/HTTP base URL (`/v1/traces` is added) … */
  OTEL_EXPORTER_OTLP_ENDPOINT: url(),
  /** … or the full traces URL, as is. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url(),
  OTEL_EXPORTER_OTLP_PROTOCOL: oneOf(['http/protobuf', 'http/json'], 'http/protobuf'),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.optional(z.enum(['http/protobuf', 'http/json'])),
  /** `key=value,…` sent with every export (back-end API keys): secrets, scrubbed from logs. */
  OTEL_EXPORTER_OTLP_HEADERS: optionalString,
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: optionalString,
  OTEL_SERVICE_NAME: optionalString,
  OTEL_SDK_DISABLED: bool,
  /** Puts message text (questions, answers, prompts, tool arguments and results) on spans. */
  OTEL_CAPTURE_CONTENT: bool,
});

export type Env = z.infer<typeof EnvSchema>;

export interface Config {
  env: Env;
  /** Function-call model (and the chat model). */
  toolModel: ModelConfig;
  /** Answer model; null = same as the function-call model. */
  answerModel: ModelConfig | null;
  /** SUMMARY_MODEL, when set; else summaries use the channel's function-call model. */
  summaryModel?: ModelConfig;
  surfaces: { slack: boolean; discord: boolean; console: boolean };
  /** The servers of MCP_CONFIG; empty without it. */
  mcpServers: McpServerConfig[];
  /** SCOUT_INSTRUCTIONS or the text of SCOUT_INSTRUCTIONS_FILE, cleaned; absent when neither is set. */
  instructions?: string;
}

/** Every variable that names an LLM key, in the order a default model is picked from. */
export const LLM_KEY_VARIABLES = [
  'DEEPSEEK_API_KEY',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'GEMINI_API_KEY',
  'OPENAI_COMPATIBLE_BASE_URL',
] as const;

const PROVIDER_KEY: Record<string, keyof Env> = {
  deepseek: 'DEEPSEEK_API_KEY',
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  gemini: 'GEMINI_API_KEY',
  'openai-compatible': 'OPENAI_COMPATIBLE_BASE_URL',
};

/** The model used when AGENT_FUNCTION_CALL_MODEL is unset, from the first LLM key present. */
function defaultModelSpec(env: Env): string | undefined {
  if (env.DEEPSEEK_API_KEY) return `deepseek/${env.DEEPSEEK_MODEL_VARIANT}`;
  if (env.OPENAI_API_KEY) return `openai/${DEFAULT_MODELS.openai}`;
  if (env.ANTHROPIC_API_KEY) return `anthropic/${DEFAULT_MODELS.anthropic}`;
  if (env.GEMINI_API_KEY) return `gemini/${DEFAULT_MODELS.gemini}`;
  if (env.OPENAI_COMPATIBLE_BASE_URL) return `openai-compatible/${env.OPENAI_COMPATIBLE_MODEL ?? 'default'}`;
  return undefined;
}

/**
 * Parses and checks the environment. Throws ConfigError with one line per problem, each naming the
 * variable. Never echoes a secret's value.
 */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const { config, problems } = checkConfig(source);
  if (!config) throw new ConfigError(problems);
  return config;
}

/** The tools Scout ships (src/tools); MCP tools are named `server__tool` and checked when they load. */
export const BUILT_IN_TOOL_NAMES = ['web_search', 'fetch_url', 'current_context'] as const;

/** Search providers that need a variable set, and which. */
const SEARCH_PROVIDER_NEEDS: Record<string, 'TAVILY_API_KEY' | 'BRAVE_API_KEY' | 'SEARXNG_URL'> = {
  tavily: 'TAVILY_API_KEY',
  brave: 'BRAVE_API_KEY',
  searxng: 'SEARXNG_URL',
};

/**
 * Every configuration problem in one pass (so a user fixes them all at once), each naming the
 * variable they set and what it accepts, never its value. A variable that fails the schema is
 * reported and then treated as unset, so the checks that depend on the rest still run.
 */
export function checkConfig(source: NodeJS.ProcessEnv = process.env): {
  config?: Config;
  problems: string[];
} {
  const problems: string[] = [];
  // jitless: parsed once per process, so zod's generated fast path would cost more than it saves.
  let parsed = EnvSchema.safeParse(source, { jitless: true });
  if (!parsed.success) {
    const rest: Record<string, unknown> = { ...source };
    for (const issue of parsed.error.issues) {
      const variable = String(issue.path[0] ?? 'environment');
      problems.push(`${variable}: ${issueMessage(issue)}`);
      delete rest[variable];
    }
    parsed = EnvSchema.safeParse(rest, { jitless: true });
    if (!parsed.success) return { problems: [...problems, ...slackProblems(source)] };
  }
  const env = parsed.data;
  problems.push(...slackProblems(env));
  const defaults = {
    temperature: env.DEFAULT_TEMPERATURE,
    maxTokens: env.DEFAULT_MAX_TOKENS,
    deepseekVariant: env.DEEPSEEK_MODEL_VARIANT,
  };

  let toolModel: ModelConfig | undefined;
  let answerModel: ModelConfig | null = null;
  const parseModel = (spec: string, variable: string): ModelConfig | undefined => {
    // DEFAULT_TEMPERATURE above Anthropic's limit is DEFAULT_TEMPERATURE's problem, reported once.
    const own = specOwnsTemperature(spec);
    const tooWarm = !own && specProvider(spec) === 'anthropic' && env.DEFAULT_TEMPERATURE > 1;
    if (tooWarm) {
      const line =
        'DEFAULT_TEMPERATURE: must be between 0 and 1 when an Anthropic model is used (Anthropic’s limit)';
      if (!problems.includes(line)) problems.push(line);
    }
    try {
      return parseModelSpec(spec, variable, tooWarm ? { ...defaults, temperature: 1 } : defaults);
    } catch (err) {
      problems.push(...(err instanceof ConfigError ? err.problems : [String(err)]));
      return undefined;
    }
  };
  const toolSpec = env.AGENT_FUNCTION_CALL_MODEL ?? defaultModelSpec(env);
  if (!toolSpec) {
    problems.push(
      `No LLM configured: set one of ${LLM_KEY_VARIABLES.join(', ')} (for example DEEPSEEK_API_KEY=sk-…) in .env or the environment`,
    );
  } else {
    toolModel = parseModel(toolSpec, 'AGENT_FUNCTION_CALL_MODEL');
  }
  if (env.AGENT_ANSWER_MODEL) answerModel = parseModel(env.AGENT_ANSWER_MODEL, 'AGENT_ANSWER_MODEL') ?? null;
  const summaryModel = env.SUMMARY_MODEL ? parseModel(env.SUMMARY_MODEL, 'SUMMARY_MODEL') : undefined;
  for (const [variable, model] of [
    ['AGENT_FUNCTION_CALL_MODEL', toolModel],
    ['AGENT_ANSWER_MODEL', answerModel],
    ['SUMMARY_MODEL', summaryModel],
  ] as const) {
    if (!model) continue;
    const keyVar = PROVIDER_KEY[model.provider];
    if (keyVar && !env[keyVar])
      problems.push(`${keyVar}: required by ${variable} (${model.provider}) but not set`);
  }
  if (env.PRICE_TABLE) {
    try {
      JSON.parse(env.PRICE_TABLE);
    } catch {
      problems.push('PRICE_TABLE: invalid JSON (expected {"provider/model": {"input": 0.5, "output": 1.5}})');
    }
  }
  const needed = SEARCH_PROVIDER_NEEDS[env.SEARCH_PROVIDER];
  if (needed && !env[needed]) {
    problems.push(`${needed}: required by SEARCH_PROVIDER=${env.SEARCH_PROVIDER} but not set`);
  }
  // Entries are named by position, not echoed: whatever was pasted here stays out of logs and CI output.
  const unknownTools = env.AGENT_TOOLS.flatMap((entry, i) => {
    const name = entry.replace(/^-/, '');
    const known = (BUILT_IN_TOOL_NAMES as readonly string[]).includes(name) || name.includes('__');
    return known ? [] : [i + 1];
  });
  if (unknownTools.length > 0) {
    problems.push(
      `AGENT_TOOLS: entry ${unknownTools.join(', ')} is not a known tool (built-in tools: ${BUILT_IN_TOOL_NAMES.join(', ')}; MCP tools are named server__tool; "-name" removes one)`,
    );
  }
  let mcpServers: McpServerConfig[] = [];
  if (env.MCP_CONFIG) {
    const mcp = loadMcpConfig(env.MCP_CONFIG, source);
    mcpServers = mcp.servers;
    problems.push(...mcp.problems);
  }
  const instructions = loadDefaultInstructions(env);
  problems.push(...instructions.problems);
  if (problems.length > 0 || !toolModel) return { problems };
  const slack = Boolean(env.SLACK_BOT_TOKEN);
  const discord = Boolean(env.DISCORD_TOKEN);
  return {
    config: {
      env,
      toolModel,
      answerModel,
      ...(summaryModel ? { summaryModel } : {}),
      surfaces: { slack, discord, console: !slack && !discord },
      mcpServers,
      ...(instructions.text ? { instructions: instructions.text } : {}),
    },
    problems,
  };
}

/** A schema issue as one line: what the variable accepts, never the value it had. */
function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_value' && 'values' in issue) {
    return `must be one of ${issue.values.map(String).join(', ')}`;
  }
  return issue.message;
}

/** The provider named by a model spec (`provider/model` or JSON), lower-cased; undefined if unreadable. */
function specProvider(spec: string): string | undefined {
  const text = spec.trim();
  if (text.startsWith('{')) {
    try {
      const provider = (JSON.parse(text) as { provider?: unknown }).provider;
      return typeof provider === 'string' ? provider.toLowerCase() : undefined;
    } catch {
      return undefined;
    }
  }
  const slash = text.indexOf('/');
  return slash > 0 ? text.slice(0, slash).toLowerCase() : undefined;
}

function specOwnsTemperature(spec: string): boolean {
  return spec.trim().startsWith('{') && /"temperature"\s*:/.test(spec);
}

/** Slack needs its bot token plus one way in (Socket Mode app token or HTTP signing secret). */
function slackProblems(env: Record<string, unknown>): string[] {
  const set = (name: string) => typeof env[name] === 'string' && (env[name] as string).trim() !== '';
  if (set('SLACK_BOT_TOKEN') && !set('SLACK_APP_TOKEN') && !set('SLACK_SIGNING_SECRET')) {
    return [
      'SLACK_APP_TOKEN or SLACK_SIGNING_SECRET: one is required with SLACK_BOT_TOKEN (Socket Mode or HTTP mode)',
    ];
  }
  if (!set('SLACK_BOT_TOKEN') && (set('SLACK_APP_TOKEN') || set('SLACK_SIGNING_SECRET'))) {
    return ['SLACK_BOT_TOKEN: required when SLACK_APP_TOKEN or SLACK_SIGNING_SECRET is set'];
  }
  // A bot token pasted here makes Socket Mode retry forever; say so before connecting.
  if (set('SLACK_APP_TOKEN') && !String(env['SLACK_APP_TOKEN']).trim().startsWith('xapp-')) {
    return ['SLACK_APP_TOKEN: must be an app-level token (xapp-…) with the connections:write scope'];
  }
  return [];
}
