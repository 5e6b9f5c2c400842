/**
 * One zod schema for the environment, parsed once at start-up. Every problem becomes one readable
 * line naming the variable (`loadConfig` throws a ConfigError with all of them).
 */
import { DEFAULT_MODELS } from '../llm/default-models.js';
import { ConfigError } from '../errors.js';
import { parseModelSpec } from '../llm/model-config.js';
import { loadMcpConfig, type McpServerConfig } from '../mcp/mcp-config.js';
import type { ModelConfig } from '../llm/types.js';
import * as z from '../schema/zod.js';
import { loadDefaultInstructions } from './instructions-default.js';
import { AGENT_FIELDS } from './env-agent.js';
import { LIMIT_FIELDS } from './env-limits.js';
import { MODEL_FIELDS } from './env-models.js';
import { OPS_FIELDS, TRACE_FIELDS } from './env-ops.js';
import { PLATFORM_FIELDS, slackProblems, webProblems } from './env-platforms.js';
import { STORE_FIELDS } from './env-store.js';

/** The sections are defined by area in env-*.ts (field kinds in env-values.ts); joined here in this order. */
export const EnvSchema = z.object({
  ...MODEL_FIELDS,
  ...AGENT_FIELDS,
  ...STORE_FIELDS,
  ...PLATFORM_FIELDS,
  ...OPS_FIELDS,
  ...LIMIT_FIELDS,
  ...TRACE_FIELDS,
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
  /**
   * `console`: the terminal chat, when no platform token is set (main.ts also opens it next to the
   * web chat when that is the only surface and a person sits at a terminal).
   */
  surfaces: { slack: boolean; discord: boolean; web: boolean; console: boolean };
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
  problems.push(...slackProblems(env), ...webProblems(source));
  if (env.WEB_PORT !== undefined && env.WEB_PORT === env.PORT) {
    problems.push('WEB_PORT: must differ from PORT (the health and metrics endpoints listen there)');
  }
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
  const web = env.WEB_PORT !== undefined;
  return {
    config: {
      env,
      toolModel,
      answerModel,
      ...(summaryModel ? { summaryModel } : {}),
      surfaces: { slack, discord, web, console: !slack && !discord && !web },
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
