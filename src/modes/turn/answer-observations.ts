/**
 * The observations as the answer model's prompt holds them, within its context window: every
 * source keeps its number and title (the answer's citations and References rest on them), and when
 * the results together do not fit, the oldest pages are shortened first, then other tools' long
 * outputs (fit-pages.ts). Agent and plan mode both answer through here (write-answer.ts).
 */
import { CachedTokenCounter } from '../../llm/cached-token-counter.js';
import { loadTextCounter, maxMessageTokens } from '../../llm/tokens.js';
import type { ChatMessage } from '../../llm/types.js';
import { PageFitter, pageSlot } from './fit-pages.js';
import {
  formatObservations,
  type Observation,
  OBSERVATION_SEPARATOR,
  observationLabel,
  usefulObservations,
} from './observations.js';

/**
 * The formatted observations for a prompt of `room` tokens; `promptWith` builds the whole prompt
 * around a given observations text (system prompt, history, the question and plan).
 */
export async function observationsWithin(
  observations: readonly Observation[],
  room: number,
  promptWith: (observations: string) => ChatMessage[],
): Promise<string> {
  const useful = usefulObservations(observations);
  const whole = formatObservations(useful);
  // The usual case is decided without the tokenizer: bytes bound tokens from above.
  if (maxMessageTokens(promptWith(whole)) <= room) return whole;

  const counter = new CachedTokenCounter(await loadTextCounter());
  const fitter = new PageFitter(counter.text, 'answer');
  // Everything but the observations' own texts is counted once: the prompt around them (a
  // one-space stand-in keeps its heading), each one's label and the separators between them.
  let fixed = counter.request(promptWith(' '));
  for (const observation of useful) fixed += counter.text(observationLabel(observation));
  fixed += Math.max(0, useful.length - 1) * counter.text(OBSERVATION_SEPARATOR);

  const slots = useful.map(pageSlot);
  const total = () => slots.reduce((sum, slot) => sum + fitter.tokens(slot.current), fixed);
  fitter.fit(slots, () => total() - room);
  return formatObservations(slots.map((slot) => slot.current));
}
