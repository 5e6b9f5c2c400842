/** What the conversation core is built from, and the hooks that watch its turns (metrics, traces). */
import type { Config } from '../config/env.js';
import type { LlmClient, ModelConfig } from '../llm/types.js';
import type { Logger } from '../logger.js';
import type { McpToolSource } from '../mcp/mcp-tools.js';
import type { ModeRunner } from '../modes/types.js';
import type { PromptLibrary } from '../prompts/prompt-library.js';
import type { SearchService } from '../search/types.js';
import type { Stores } from '../store/types.js';
import type { IncomingMessage, Mode, TurnSink } from '../surface.js';
import type { ToolRegistry } from '../tools/types.js';

export interface TurnObserver {
  onTurnStart?(info: { mode: Mode; conversationId: string }): void;
  onTurnEnd?(info: { mode: Mode; outcome: 'ok' | 'error' | 'cancelled'; ms: number; error?: unknown }): void;
  /**
   * Runs a turn inside the observer (traces: the turn's span is the parent of everything the turn
   * does); it may hand the turn a watched message and sink, and a scope.
   */
  aroundTurn?(
    message: IncomingMessage,
    sink: TurnSink,
    run: (message: IncomingMessage, sink: TurnSink, scope?: TurnScope) => Promise<void>,
  ): Promise<void>;
}

/**
 * What an observer hands the one turn it runs (traces: the turn's span, passed explicitly rather than
 * through an async context, whose promise hooks cost every promise of the process on Node 20). The
 * turn sees its model clients, tool registry and search service through these wrappers
 * (src/core/turn-scope.ts), writes its log lines with `logFields`, and tells the scope when it
 * starts and ends.
 */
export interface TurnScope extends Pick<TurnObserver, 'onTurnStart' | 'onTurnEnd'> {
  wrapLlm?(client: LlmClient): LlmClient;
  wrapTools?(registry: ToolRegistry): ToolRegistry;
  wrapSearch?(service: SearchService): SearchService;
  /** Fields on every line the turn's logger writes (traces: its trace and span id). */
  logFields?: Record<string, string>;
}

export interface ScoutDeps {
  config: Config;
  logger: Logger;
  stores: Stores;
  search: SearchService;
  tools: ToolRegistry;
  prompts: PromptLibrary;
  /** Builds (or returns a cached) client for a model choice. */
  llm: (model: ModelConfig) => LlmClient;
  modes: Record<Mode, ModeRunner>;
  observer?: TurnObserver;
  /** How long a plan waits for Run / Cancel (default PLAN_CONFIRM_TIMEOUT_MS; tests shrink it). */
  planConfirmMs?: number;
  /** The MCP servers, for `/tools` and `/config` (their tools reach turns through `tools`). */
  mcp?: McpToolSource;
}
