/**
 * The tools Scout offers the agent: web_search (only when a search provider is set), fetch_url,
 * search_workspace (WORKSPACE_SEARCH=on), current_context.
 */
import type { Config } from '../config/env.js';
import type { SearchService } from '../search/types.js';
import { createCurrentContextTool } from './current-context-tool.js';
import { type FetchUrlOptions, pageBudgetChars } from './fetch-policy.js';
import { createFetchUrlTool } from './fetch-url-tool.js';
import type { Tool } from './types.js';
import { createWebSearchTool } from './web-search-tool.js';
import { createWorkspaceSearchTool } from './workspace-search-tool.js';

/** Room above the provider's own timeout so its clearer error message arrives first. */
const SEARCH_TOOL_TIMEOUT_SLACK_MS = 2_000;

export interface DefaultToolDeps {
  search: SearchService;
  config: Pick<Config, 'env'>;
  fetchUrl?: FetchUrlOptions;
  now?: () => Date;
}

export function createDefaultTools(deps: DefaultToolDeps): Tool[] {
  // Tools are generic over their input; the registry validates before calling, so the list is Tool<unknown>.
  const tools: Tool[] = [];
  if (deps.search.available) {
    tools.push(
      createWebSearchTool(deps.search, {
        timeoutMs: deps.config.env.SEARCH_TIMEOUT_MS + SEARCH_TOOL_TIMEOUT_SLACK_MS,
      }) as Tool,
    );
  }
  tools.push(
    createFetchUrlTool({
      policy: deps.config.env.FETCH_URL_POLICY,
      maxChars: pageBudgetChars(deps.config.env.LLM_CONTEXT_WINDOW),
      ...deps.fetchUrl,
    }) as Tool,
  );
  // Offered only in turns whose surface hands over a workspace to search (withWorkspaceSearch).
  if (deps.config.env.WORKSPACE_SEARCH === 'on') tools.push(createWorkspaceSearchTool() as Tool);
  tools.push(createCurrentContextTool({ timeZone: deps.config.env.TIMEZONE, now: deps.now }) as Tool);
  return tools;
}
