/**
 * Builds a TurnContext for mode tests from real pieces (config, prompt library, tool registry,
 * search service) and collects what the mode emits, folded into a TurnView like a surface sees it.
 */
import Keyv from 'keyv';
import { type Config, loadConfig } from '../../src/config/env.js';
import type { ChannelSettings } from '../../src/core/settings.js';
import type { LlmClient } from '../../src/llm/types.js';
import { silentLogger, type Logger } from '../../src/logger.js';
import type { PlanProposal } from '../../src/modes/plan/plan-types.js';
import type { TurnContext } from '../../src/modes/types.js';
import { createPromptLibrary } from '../../src/prompts/prompt-library.js';
import type { TurnEvent } from '../../src/render/events.js';
import { emptyView, foldEvent, type TurnView } from '../../src/render/view.js';
import { createSearchService } from '../../src/search/search-service.js';
import type { SearchService } from '../../src/search/types.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import type { Tool, ToolRegistry } from '../../src/tools/types.js';
import { createWebSearchTool } from '../../src/tools/web-search-tool.js';
import type { Locale } from '../../src/surface.js';

export interface TestTurn {
  ctx: TurnContext;
  events: TurnEvent[];
  /** Date.now() when each event was emitted (same index as `events`). */
  times: number[];
  view: TurnView;
  search: SearchService;
  abort: AbortController;
}

export interface MakeTurnOptions {
  text: string;
  llm: { tool: LlmClient; answer?: LlmClient };
  /** Environment merged into the config (e.g. a fake search server's `env('tavily')`). */
  env?: Record<string, string>;
  /** Extra tools next to web_search (registered only when search is configured). */
  tools?: Tool[];
  registry?: ToolRegistry;
  search?: SearchService;
  sessionKey?: string;
  locale?: Locale;
  logger?: Logger;
  confirmPlan?: (plan: PlanProposal) => Promise<boolean>;
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ OPENAI_API_KEY: 'sk-test', LOG_LEVEL: 'silent', STORE_URL: 'memory://', ...env });
}

/** One search service per session store, so a second turn of a test can share its cache. */
export function makeSearch(config: Config, cache: Keyv = new Keyv()): SearchService {
  return createSearchService(config, { searchCache: cache }, silentLogger);
}

export function makeTurnContext(options: MakeTurnOptions): TestTurn {
  const config = testConfig(options.env);
  const search = options.search ?? makeSearch(config);
  const tools: Tool[] = [
    ...(search.available ? [createWebSearchTool(search) as Tool] : []),
    ...(options.tools ?? []),
  ];
  const registry = options.registry ?? createToolRegistry(tools, { logger: silentLogger });
  const events: TurnEvent[] = [];
  const times: number[] = [];
  const view = emptyView();
  const abort = new AbortController();
  const settings: ChannelSettings = {
    mode: 'agent',
    search: false,
    toolModel: options.llm.tool.config,
    answerModel: options.llm.answer ? options.llm.answer.config : null,
    replyInThread: true,
  };
  const ctx: TurnContext = {
    message: {
      channelId: 'test:C1',
      conversationId: 'test:C1:T1',
      messageId: 'm1',
      userId: 'U1',
      userName: 'tester',
      channelName: 'general',
      text: options.text,
    },
    settings,
    history: [],
    locale: options.locale ?? 'en',
    sessionKey: options.sessionKey ?? 'session-1',
    emit(event) {
      events.push(event);
      times.push(Date.now());
      foldEvent(view, event, options.locale ?? 'en');
    },
    signal: abort.signal,
    llm: { tool: options.llm.tool, answer: options.llm.answer ?? options.llm.tool },
    tools: registry,
    search,
    prompts: createPromptLibrary(),
    config,
    logger: options.logger ?? silentLogger,
    ...(options.confirmPlan ? { confirmPlan: options.confirmPlan } : {}),
  };
  return { ctx, events, times, view, search, abort };
}

/** Steps of one kind, in the order they appeared. */
export function stepsOf(view: TurnView, kind: TurnView['steps'][number]['kind']) {
  return view.steps.filter((s) => s.kind === kind);
}
