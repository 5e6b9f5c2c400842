/**
 * Wires the core from configuration: store, search, tools, prompts, model clients and modes.
 * Surfaces are not built here (the composition root loads them by dynamic import).
 */
import { LRUCache } from 'lru-cache';
import type { Config } from '../config/env.js';
import { createLlmClientFromConfig } from '../llm/create-llm-client.js';
import { modelLabel } from '../llm/model-config.js';
import type { LlmClient, ModelConfig } from '../llm/types.js';
import type { Logger } from '../logger.js';
import { runAgent } from '../modes/agent/run-agent.js';
import { runChat } from '../modes/chat/run-chat.js';
import { runPlan } from '../modes/plan/run-plan.js';
import { createPromptLibrary } from '../prompts/prompt-library.js';
import { createSearchService } from '../search/search-service.js';
import type { SearchService } from '../search/types.js';
import { mcpSecrets } from '../mcp/mcp-config.js';
import type { McpToolSourceOptions } from '../mcp/mcp-tools.js';
import { createStores } from '../store/create-stores.js';
import type { Stores } from '../store/types.js';
import { createDefaultTools } from '../tools/default-tools.js';
import { createToolRegistry } from '../tools/registry.js';
import type { TurnObserver } from './scout-deps.js';
import { Scout } from './scout.js';

/** Distinct model configurations kept as ready clients. */
const MAX_CACHED_CLIENTS = 64;

export interface BuildOptions {
  config: Config;
  logger: Logger;
  /** An already-open store (tests, two instances sharing one); otherwise opened from STORE_URL. */
  stores?: Stores;
  observer?: TurnObserver;
  /** Wraps each model client (metrics). */
  wrapLlm?: (client: LlmClient) => LlmClient;
  /** Wraps the search service (metrics). */
  wrapSearch?: (service: SearchService) => SearchService;
  /** MCP start bound and restart backoff (tests shrink them). */
  mcp?: Pick<McpToolSourceOptions, 'startTimeoutMs' | 'backoff'>;
}

export async function buildScout(options: BuildOptions): Promise<Scout> {
  const { config, logger } = options;
  const stores =
    options.stores ??
    (await createStores({ url: config.env.STORE_URL, sessionTtlMs: config.env.SESSION_TTL, logger }));
  const baseSearch = createSearchService(config, stores, logger);
  const search = options.wrapSearch ? options.wrapSearch(baseSearch) : baseSearch;
  const builtIn = createDefaultTools({ config, search });
  // MCP servers start lazily, on the first turn that may call tools; the MCP SDK and ajv load
  // only when servers are configured (they add ~1 s and ~20 MiB to every start otherwise).
  const mcp =
    config.mcpServers.length > 0
      ? new (await import('../mcp/mcp-tools.js')).McpToolSource(config.mcpServers, {
          logger,
          secrets: mcpSecrets(config.mcpServers),
          reservedNames: builtIn.map((t) => t.name),
          ...options.mcp,
        })
      : undefined;
  const tools = createToolRegistry(builtIn, {
    allow: config.env.AGENT_TOOLS,
    maxTools: config.env.AGENT_MAX_TOOLS,
    logger,
    ...(mcp ? { sources: [mcp] } : {}),
  });
  // One client per distinct model choice: settings change rarely, turns are many. Bounded, because
  // every `/model … temperature=…` variant is a new key.
  const clients = new LRUCache<string, LlmClient>({ max: MAX_CACHED_CLIENTS });
  const llm = (model: ModelConfig): LlmClient => {
    const key = JSON.stringify(model);
    let client = clients.get(key);
    if (!client) {
      client = createLlmClientFromConfig(config, model, logger.child({ model: modelLabel(model) }));
      if (options.wrapLlm) client = options.wrapLlm(client);
      clients.set(key, client);
    }
    return client;
  };
  // The configured models' clients now, so their provider SDK loads in the background while the
  // surfaces start (other providers' SDKs load only if a channel picks one of their models).
  llm(config.toolModel);
  if (config.answerModel) llm(config.answerModel);
  return new Scout({
    config,
    logger,
    stores,
    search,
    tools,
    prompts: createPromptLibrary(),
    llm,
    modes: { chat: runChat, agent: runAgent, plan: runPlan },
    observer: options.observer,
    ...(mcp ? { mcp } : {}),
  });
}
