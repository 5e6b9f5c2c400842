import type { Config } from '../config/env.js';
import type { ChannelSettings } from '../core/settings.js';
import type { LlmClient, ChatMessage } from '../llm/types.js';
import type { Logger } from '../logger.js';
import type { PromptLibrary } from '../prompts/prompt-library.js';
import type { TurnEvent, TurnStats } from '../render/events.js';
import type { SearchService } from '../search/types.js';
import type { IncomingMessage, Locale } from '../surface.js';
import type { ToolApprovalRequest, ToolRegistry } from '../tools/types.js';
import type { HearStep } from '../turn-steps.js';
import type { PlanProposal } from './plan/plan-types.js';

/** Everything a mode needs for one turn. Modes emit events; they never post or edit. */
export interface TurnContext {
  message: IncomingMessage;
  settings: ChannelSettings;
  /** Earlier turns of this conversation (user/assistant only), already trimmed to the context window. */
  history: ChatMessage[];
  /**
   * The turn's language, for what a model reads (prompts' `{language}`, notes in tool results) and
   * what history keeps. Not for user text: modes emit phrases and the renderer says them.
   */
  locale: Locale;
  /** Session scope for the search cache (the channel's session). */
  sessionKey: string;
  emit(event: TurnEvent): void;
  /** Aborted by Stop, shutdown past its bound, or (inside agent mode) the time limit. */
  signal: AbortSignal;
  /** `answer` is the same object as `tool` when no separate answer model is set. */
  llm: { tool: LlmClient; answer: LlmClient };
  tools: ToolRegistry;
  search: SearchService;
  prompts: PromptLibrary;
  config: Config;
  logger: Logger;
  /** The turn's scope (traces) hears the steps the mode waits on: chat mode's search. */
  hearStep?: HearStep;
  /** Plan mode: ask the user to run the plan; undefined → run without asking. */
  confirmPlan?: (plan: PlanProposal) => Promise<boolean>;
  /** Ask the asker to approve a tool call that changes something; undefined → such calls are refused. */
  confirmTool?: (request: ToolApprovalRequest, signal: AbortSignal) => Promise<boolean>;
}

export interface TurnResult {
  /** The final answer as stored in history (Markdown, citations linked). Empty when nothing was answered. */
  answer: string;
  stats?: TurnStats;
  /** Structured trace for logs and tests (agent and plan modes). */
  trace?: unknown;
}

export type ModeRunner = (context: TurnContext) => Promise<TurnResult>;
