/**
 * What the web page is sent (PROTOCOL.md › Shapes): a turn's view as plain JSON, and the difference
 * between two moments of it, so a streamed token costs its own bytes on the wire, not the whole
 * answer again. Everything textual stays as the core said it (Markdown, untrusted): the page renders
 * it through its sanitiser.
 */
import type { TurnView } from '../../src/render/view.js';
import type {
  Confirm as WireConfirm,
  Entry as WireEntry,
  Step as WireStep,
  Turn as WireTurn,
  TurnPatch,
} from './client/protocol.js';

export type { TurnPatch, WireConfirm, WireEntry, WireStep, WireTurn };

/** A copy of the view as it is now (the core goes on mutating its own). */
export function toWireTurn(id: string, view: TurnView, confirm?: WireConfirm): WireTurn {
  return {
    id,
    steps: view.steps.map((step) => ({ ...step })),
    answer: view.answer,
    answerFinal: view.answerFinal,
    sources: view.sources,
    ...(view.phase !== undefined ? { phase: view.phase } : {}),
    status: view.status,
    ...(view.footer !== undefined ? { footer: view.footer } : {}),
    ...(view.error !== undefined ? { error: view.error } : {}),
    ...(view.notSaved ? { notSaved: true } : {}),
    done: view.done,
    cancelled: view.cancelled,
    ...(confirm ? { confirm: { ...confirm } } : {}),
  };
}

const sameStep = (a: WireStep, b: WireStep) =>
  a.title === b.title && a.body === b.body && a.status === b.status && a.collapsed === b.collapsed;

/**
 * What changed from `before` to `after` (both wire turns of one id), or undefined when nothing did.
 * `before` is then brought up to date by the caller (it is the copy the last patch described).
 */
export function diffTurn(before: WireTurn, after: WireTurn): TurnPatch | undefined {
  const patch: TurnPatch = { turnId: after.id };
  let changed = false;
  const set = <K extends keyof TurnPatch>(key: K, value: TurnPatch[K]) => {
    patch[key] = value;
    changed = true;
  };
  const steps = after.steps.filter((step, i) => {
    const old =
      before.steps[i]?.id === step.id ? before.steps[i] : before.steps.find((s) => s.id === step.id);
    return !old || !sameStep(old, step);
  });
  if (steps.length > 0) set('steps', steps);
  if (after.answer !== before.answer) {
    if (after.answer.startsWith(before.answer) && after.answerFinal === before.answerFinal) {
      set('append', after.answer.slice(before.answer.length));
      patch.at = before.answer.length;
    } else set('answer', after.answer);
  }
  if (after.answerFinal !== before.answerFinal) set('answerFinal', after.answerFinal);
  if (after.sources !== before.sources && after.sources.length + before.sources.length > 0)
    set('sources', after.sources);
  if (after.phase !== before.phase && after.phase !== undefined) set('phase', after.phase);
  if (after.status !== before.status) set('status', after.status);
  if (after.footer !== before.footer && after.footer !== undefined) set('footer', after.footer);
  if (after.error !== before.error && after.error !== undefined) set('error', after.error);
  if (after.notSaved && !before.notSaved) set('notSaved', true);
  if (after.done !== before.done) set('done', after.done);
  if (after.cancelled !== before.cancelled) set('cancelled', after.cancelled);
  const confirmChanged =
    after.confirm &&
    (!before.confirm ||
      before.confirm.id !== after.confirm.id ||
      before.confirm.state !== after.confirm.state);
  if (confirmChanged) set('confirm', after.confirm);
  return changed ? patch : undefined;
}

/** `turn` with `patch` applied (a copy); undefined when the patch does not follow on from it. */
export function applyPatch(turn: WireTurn, patch: TurnPatch): WireTurn | undefined {
  if (patch.turnId !== turn.id) return undefined;
  if (patch.append !== undefined && patch.at !== undefined && patch.at !== turn.answer.length)
    return undefined;
  const { turnId: _id, steps, append, at: _at, ...rest } = patch;
  const next: WireTurn = { ...turn, steps: [...turn.steps], ...rest };
  for (const step of steps ?? []) {
    const i = next.steps.findIndex((s) => s.id === step.id);
    if (i >= 0) next.steps[i] = step;
    else next.steps.push(step);
  }
  if (append !== undefined) next.answer = turn.answer + append;
  return next;
}
