/**
 * Two turn observers as one (metrics and traces): both hear every start and end; `aroundTurn`
 * nests, the first observer's outside, and the turn gets the innermost scope given.
 */
import type { TurnObserver } from '../../core/scout-deps.js';

export function combineObservers(outer: TurnObserver, inner: TurnObserver): TurnObserver {
  const combined: TurnObserver = {
    onTurnStart(info) {
      outer.onTurnStart?.(info);
      inner.onTurnStart?.(info);
    },
    onTurnEnd(info) {
      outer.onTurnEnd?.(info);
      inner.onTurnEnd?.(info);
    },
  };
  if (outer.aroundTurn || inner.aroundTurn) {
    combined.aroundTurn = (message, sink, run) => {
      const innerRun: typeof run = inner.aroundTurn
        ? (m, s, outerScope) => inner.aroundTurn!(m, s, (m2, s2, scope) => run(m2, s2, scope ?? outerScope))
        : run;
      return outer.aroundTurn ? outer.aroundTurn(message, sink, innerRun) : innerRun(message, sink);
    };
  }
  return combined;
}
