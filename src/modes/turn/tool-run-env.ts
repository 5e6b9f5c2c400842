import type { Logger } from '../../logger.js';
import type { TurnEvent } from '../../render/events.js';
import type { ToolContext, ToolRegistry } from '../../tools/types.js';
import type { TraceRecorder } from './agent-trace.js';
import type { UsageTracker } from './usage-tracker.js';

/** What running a turn's tools needs, in agent rounds and plan steps alike. */
export interface ToolRunEnv {
  tools: ToolRegistry;
  toolContext: ToolContext;
  emit(event: TurnEvent): void;
  tracker: UsageTracker;
  trace: TraceRecorder;
  logger: Logger;
  /** AGENT_VERBOSE: log every tool input and output at info level. */
  verbose: boolean;
}
