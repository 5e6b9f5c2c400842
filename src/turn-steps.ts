/**
 * The steps a turn waits on — a search, reading the thread or a file, the final delivery, asking the
 * asker — as the turn tells them, where it takes them, to the scope its observer handed it (traces;
 * TurnScope in scout-deps.ts, which also hears each model and tool call, told by the turn's meter).
 * The core reports these as events instead of letting the observer wrap the turn's model clients,
 * tool registry, search service, context source and sink in new objects every turn: the turn's
 * objects stay its own, and a step nobody hears is just the work. (Not for speed: the two cost an
 * agent turn alike, docs/performance.md, scenario 17.)
 */
import type { MessageContextSource, ThreadMessage } from './context/types.js';
import type { TurnView } from './render/view.js';
import type { SearchOutcome } from './search/types.js';

/** Each step a turn waits on: what is known when it starts, and (`result`) what it gives back. */
export interface TurnSteps {
  search: { provider: string; query: string; result: SearchOutcome };
  'read-thread': { result: ThreadMessage[] };
  'read-file': { mimeType?: string; result: Awaited<ReturnType<MessageContextSource['download']>> };
  /** The final render on the platform; `updates` counts the live edits asked for before it. */
  deliver: { updates: number; view: TurnView; result: unknown };
  'confirm-plan': { result: boolean };
  'confirm-tool': { tool: string; result: boolean };
}

export type TurnStepKind = keyof TurnSteps;
export type TurnStep<K extends TurnStepKind = TurnStepKind> = { kind: K } & Omit<TurnSteps[K], 'result'>;
export type StepResult<K extends TurnStepKind> = TurnSteps[K]['result'];

/** Runs a step of the turn, so that the scope hears its start, its end and its result. */
export type HearStep = <K extends TurnStepKind>(
  step: TurnStep<K>,
  work: () => Promise<StepResult<K>>,
) => Promise<StepResult<K>>;

/** `work`, heard by `hear` where a scope listens; as it is otherwise (no scope: no cost). */
export function heard<K extends TurnStepKind>(
  hear: HearStep | undefined,
  step: TurnStep<K>,
  work: () => Promise<StepResult<K>>,
): Promise<StepResult<K>> {
  return hear ? hear(step, work) : work();
}
