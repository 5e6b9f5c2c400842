/**
 * Typed events a turn emits. Modes (chat, agent, plan) only emit these; they never post or edit.
 * `foldEvent` (view.ts) turns them into a platform-neutral `TurnView` that each surface renders.
 * Their words are phrases (`UserText`): what happened, with a catalog key and values; `foldEvent`
 * says them in the turn's locale, so no mode formats user text.
 */
import type { UserText } from '../i18n/phrase.js';

export type StepKind =
  | 'thinking' // model reasoning, streams, collapses on the first answer chunk
  | 'search' // one web_search call: query, running → done/failed
  | 'search-results' // count and top 3 results, collapsed
  | 'tool' // any other tool call (fetch_url, current_context)
  | 'evaluation' // why the loop goes on or stops
  | 'model-switch' // function-call model → answer model, with the reason
  | 'notice' // something worth knowing: history trimmed, search not configured, plan cancelled
  | 'warning' // something went short: a limit hit, a timeout, a loop stopped, an answer cut
  | 'plan' // the proposed plan
  | 'plan-step'; // one step of a running plan

export type StepStatus = 'pending' | 'running' | 'done' | 'failed' | 'skipped' | 'info';

export interface Source {
  /** 1-based number, stable for the whole answer. */
  n: number;
  title: string;
  url: string;
  snippet?: string;
  /** Site name and publication date, when a read page gave them (References show them). */
  site?: string;
  published?: string;
}

export interface ModelStats {
  label: string;
  role: 'function_call' | 'answer' | 'planner' | 'chat';
  calls: number;
  inputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  /** Parts of inputTokens read from / written to the provider's prompt cache (priced apart). */
  cachedInputTokens?: number;
  cacheWriteTokens?: number;
  ms: number;
}

export interface TurnStats {
  models: ModelStats[];
  /** Per phase, e.g. { tools: 1234, answer: 2345 }. */
  phases: Record<string, number>;
  totalTokens: number;
  /** Estimated cost in USD from the price table; undefined when a model has no price. */
  costUsd?: number;
  totalMs: number;
  toolCalls: number;
  searches: number;
}

export type TurnEvent =
  | { type: 'step-start'; id: string; kind: StepKind; title: UserText; body?: UserText; status?: StepStatus }
  | {
      type: 'step-update';
      id: string;
      title?: UserText;
      /** Replaces the body. */
      body?: UserText;
      /** Appended to the body (streamed reasoning, the model's own words). */
      append?: string;
      status?: StepStatus;
    }
  | {
      type: 'step-finish';
      id: string;
      status: 'done' | 'failed' | 'skipped' | 'info';
      title?: UserText;
      body?: UserText;
      /** Finished steps collapse by default; notices stay open. */
      collapse?: boolean;
    }
  /**
   * A chunk of the streamed answer: the model's text with its `[n]` markers already linked the way
   * the final text links them (src/search/live-citations.ts; a marker still arriving is held back).
   */
  | { type: 'text-delta'; text: string }
  /**
   * The answer is complete: `text` is the final Markdown with citations linked and the References
   * section appended (its heading a phrase). Replaces whatever was streamed; from the answer modes
   * it begins with exactly what streamed.
   */
  | { type: 'answer'; text: UserText; sources: Source[] }
  /**
   * Which model is working now (shown as a label on the steps message); the role picks the icon the
   * renderer puts before it, the same one the statistics footer uses.
   */
  | { type: 'phase'; label: string; role?: ModelStats['role'] }
  | { type: 'status'; text: UserText | null }
  /** The turn's statistics; the footer line is written from them in the turn's locale. */
  | { type: 'stats'; stats: TurnStats }
  /** A friendly message for the user; the turn ends after it. */
  | { type: 'error'; message: UserText };
