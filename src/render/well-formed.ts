/**
 * Model and web text can carry unpaired UTF-16 surrogates (a JSON `\ud83d` escape, a tokenizer that
 * split an emoji). They are not text: JSON encoders escape them, platforms refuse the payload or
 * store garbage, and form encoders throw. Everything the renderer draws passes through here first,
 * so no surface ever sends one: each becomes U+FFFD (what a UTF-8 encoder writes for it), except a
 * high surrogate at the very end of text that is still streaming — the rest of its pair is in the
 * next chunk, so it is held back for now instead of flashing a replacement character.
 */
import type { StepView, TurnView } from './view.js';

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * `text` with every unpaired surrogate replaced by U+FFFD (a trailing high one dropped while `growing`).
 * The check and the replacement are the engine's own (`isWellFormed`, `toWellFormed`: ES2024, in
 * Node 20 and 24): the renderer asks on every frame, over the whole answer so far and every step and
 * source, and a regular expression with a lookbehind cost about 1.5 ms of CPU per agent turn (bench
 * scenario 17's CPU profile) where the native scan costs a fraction.
 */
export function wellFormed(text: string, growing = false): string {
  if (text.isWellFormed()) return text;
  const held = growing && isHighSurrogate(text.charCodeAt(text.length - 1)) ? text.slice(0, -1) : text;
  return held.toWellFormed();
}

/**
 * The first `max` UTF-16 units of `text` without cutting a surrogate pair in two (one unit fewer
 * when the cut would fall inside one): for texts a platform caps by length.
 */
export function sliceWhole(text: string, max: number): string {
  if (text.length <= max) return text;
  return text.slice(0, isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max);
}

/**
 * The view with its text made well-formed: the answer, the steps' titles and bodies (search queries,
 * page titles, reasoning), the status and phase lines, the sources' titles and snippets, the error. Returns the
 * view itself when nothing needs replacing, and keeps every unchanged step object (the renderer keys
 * built task cards on them).
 */
export function wellFormedView(view: TurnView): TurnView {
  const growing = !view.done && !view.answerFinal;
  const answer = wellFormed(view.answer, growing);
  let stepsChanged = false;
  const steps = view.steps.map((step): StepView => {
    const title = wellFormed(step.title);
    const body = wellFormed(step.body, !view.done && step.status === 'running');
    if (title === step.title && body === step.body) return step;
    stepsChanged = true;
    return { ...step, title, body };
  });
  let sourcesChanged = false;
  const sources = view.sources.map((source) => {
    const title = wellFormed(source.title);
    const snippet = source.snippet === undefined ? undefined : wellFormed(source.snippet);
    if (title === source.title && snippet === source.snippet) return source;
    sourcesChanged = true;
    return { ...source, title, ...(snippet !== undefined ? { snippet } : {}) };
  });
  const status = view.status === null ? null : wellFormed(view.status);
  const phase = view.phase === undefined ? undefined : wellFormed(view.phase);
  const error = view.error === undefined ? undefined : wellFormed(view.error);
  if (
    answer === view.answer &&
    !stepsChanged &&
    !sourcesChanged &&
    status === view.status &&
    phase === view.phase &&
    error === view.error
  )
    return view;
  return {
    ...view,
    answer,
    steps: stepsChanged ? steps : view.steps,
    sources: sourcesChanged ? sources : view.sources,
    status,
    ...(phase !== undefined ? { phase } : {}),
    ...(error !== undefined ? { error } : {}),
  };
}
