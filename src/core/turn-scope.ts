/** A turn's view of the core's dependencies, through the scope its observer handed it (TurnScope). */
import type { ScoutDeps, TurnScope } from './scout-deps.js';

export type { TurnScope };

/** The core's dependencies as one turn sees them: wrapped by its scope, heard by its scope too. */
export function scopedDeps(deps: ScoutDeps, scope: TurnScope): ScoutDeps {
  const { wrapLlm, wrapTools, wrapSearch } = scope;
  const observer = deps.observer;
  return {
    ...deps,
    llm: wrapLlm ? (model) => wrapLlm(deps.llm(model)) : deps.llm,
    // The search first: a scope's tool wrapper may hand tools the search it wrapped.
    search: wrapSearch ? wrapSearch(deps.search) : deps.search,
    tools: wrapTools ? wrapTools(deps.tools) : deps.tools,
    observer: {
      onTurnStart(info) {
        observer?.onTurnStart?.(info);
        scope.onTurnStart?.(info);
      },
      onTurnEnd(info) {
        observer?.onTurnEnd?.(info);
        scope.onTurnEnd?.(info);
      },
    },
  };
}
