/**
 * The environment variables of the modes, the agent's tools, the context reader and web search
 * (part of EnvSchema, env.ts).
 */
import * as z from '../schema/zod.js';
import { bool, intIn, list, number, oneOf, optionalString, url } from './env-values.js';

export const AGENT_FIELDS = {
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
  /** `on`: search_workspace searches the team's own messages as the asker (issue 59; needs the manifest's search scopes). */
  WORKSPACE_SEARCH: oneOf(['on', 'off'], 'off'),
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
};
