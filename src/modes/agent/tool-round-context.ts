/**
 * What one ReAct round's tool calls share (run-tool-calls.ts, read-top-results.ts): in a file of its
 * own so that the two can both name it without importing each other.
 */
import type { Locale } from '../../surface.js';
import type { SourceNumbering } from '../turn/observations.js';
import type { ToolRunEnv } from '../turn/tool-run-env.js';

export interface ReadResultsPolicy {
  /** Result pages read per search (0: none). */
  count: number;
  /** URLs already read in this turn: never twice. */
  read: Set<string>;
}

export interface ToolRoundContext extends ToolRunEnv {
  /** The turn's language, for what the model reads (the note on a repeated call); never user text. */
  locale: Locale;
  numbering: SourceNumbering;
  /** Prefix for step ids, unique per round ("r2"). */
  stepPrefix: string;
  /** Thought of the model for this round (recorded on the trace's first step of the round). */
  thought?: string;
  /** Agent mode: read the top results of each search in the same round (AGENT_READ_RESULTS). */
  readResults?: ReadResultsPolicy;
}
