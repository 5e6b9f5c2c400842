/** What the conversation core is built from, and the hooks that watch its turns (metrics, traces). */
import type { Config } from '../config/env.js';
import type { LlmClient, LlmRequest, LlmResponse, ModelConfig } from '../llm/types.js';
import type { StreamWatcher } from '../llm/watched-stream.js';
import type { Logger } from '../logger.js';
import type { McpToolSource } from '../mcp/mcp-tools.js';
import type { ModeRunner } from '../modes/types.js';
import type { PromptLibrary } from '../prompts/prompt-library.js';
import type { SearchService } from '../search/types.js';
import type { Stores } from '../store/types.js';
import type { IncomingMessage, Mode, TurnSink } from '../surface.js';
import type { ToolOutput, ToolRegistry } from '../tools/types.js';
import type { HearStep } from '../turn-steps.js';

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

/** Hears one model call: a stream's parts, failure and end; a completion's response. */
export interface ModelCallWatcher extends StreamWatcher {
  /** `complete` answered (`end` follows). */
  response?(response: LlmResponse): void;
}

/** Hears one tool call from its start. */
export interface ToolCallWatcher {
  /** Fields on the call's log lines (traces: its span's ids). */
  logFields?: Record<string, string>;
  /** Steps the call makes (web_search's search), heard under the call. */
  hearStep?: HearStep;
  /** The call ended: with its output, or with an error (a cancellation). */
  end(output: ToolOutput | undefined, err?: unknown): void;
}

/**
 * What an observer hands the one turn it runs. The turn reports to it; the observer wraps nothing.
 * Passed explicitly rather than through an async context, whose promise hooks cost every promise of
 * the process on Node 20.
 */
export interface TurnScope extends Pick<TurnObserver, 'onTurnStart' | 'onTurnEnd'> {
  /** Fields on every line the turn's logger writes (traces: its trace and span id). */
  logFields?: Record<string, string>;
  /** A model call of the turn starts (a stream when it is iterated, or a completion). */
  modelCall?(client: LlmClient, request: LlmRequest): ModelCallWatcher;
  /** A tool call of the turn starts; `registry` is the one it runs in (for MCP servers' names). */
  toolCall?(name: string, rawArguments: string, registry: ToolRegistry): ToolCallWatcher;
  /** Runs each step the turn waits on (a search, a read, the delivery, Run / Approve; src/turn-steps.ts). */
  hearStep?: HearStep;
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
