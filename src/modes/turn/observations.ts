/**
 * What the tools found during a turn, numbered once per answer. Sources keep one global number
 * across every search (the same URL keeps its number), and the text the models read uses those
 * numbers, so the `[n]` markers the answer model writes line up with the References section.
 */
import type { Source } from '../../render/events.js';
import { formatToolResults } from '../../search/format-results.js';
import type { SearchResult } from '../../search/types.js';
import type { ToolOutput } from '../../tools/types.js';
import { escapeDelimiters } from '../../tools/untrusted-text.js';

/** The part of `SourceRegistry` (src/search/citations.ts) the executors need. */
export interface SourceNumbering {
  /** Numbers results answer-wide (an existing URL keeps its number), in input order, deduplicated. */
  add(results: SearchResult[]): Source[];
}

export interface Observation {
  tool: string;
  /** Short description of the input (the query for web_search). */
  input: string;
  /** The delimited-ready text (sources renumbered globally). */
  text: string;
  isError: boolean;
  /** A search that found nothing: its text ("No results found.") is no result at all. */
  isEmpty: boolean;
  /**
   * A page read (fetch_url): its text is `Source [n]`, the page's header and its passages, and may be
   * shortened to fit the context window before anything else (fit-pages.ts); search result lists
   * never are.
   */
  isPage: boolean;
  /** A page's parts as fetch_url's `part` reads them, when fetch_url said (the shortened note names them). */
  parts?: number;
  /** The sources this observation brought, with their answer-wide numbers, in order. */
  sources: Source[];
}

/**
 * Renders a tool's output for the models. Outputs that carry sources are re-rendered with global
 * numbers; the tool's own text (numbered 1..n per call) would make citations ambiguous.
 */
export function toObservation(
  tool: string,
  input: string,
  output: ToolOutput,
  numbering: SourceNumbering,
): Observation {
  const sources = output.isError ? [] : (output.sources ?? []);
  if (sources.length === 0) {
    const isEmpty = !output.isError && (output.sources !== undefined || output.text.trim() === '');
    return {
      tool,
      input,
      text: output.text,
      isError: output.isError === true,
      isEmpty,
      isPage: false,
      sources: [],
    };
  }
  const numbered = numbering.add(sources);
  return {
    tool,
    input,
    // A page keeps its text (a 200-character snippet is not what the model asked to read).
    text: output.isPage
      ? `Source [${numbered[0]?.n}]\n${output.text}`
      : formatToolResults(numbered.map((s) => ({ ...s, snippet: s.snippet ?? '' }))),
    isError: false,
    isEmpty: false,
    isPage: output.isPage === true,
    ...(output.isPage && output.parts !== undefined ? { parts: output.parts } : {}),
    sources: numbered,
  };
}

/** Tool output is data, not instructions: the models see it inside clear delimiters. */
export function delimit(observation: Pick<Observation, 'tool' | 'text'>): string {
  // Text that could pass for a closing tag (any case, spacing, look-alike or hidden byte) would end
  // the block early and turn the rest of a page into instructions; every "<" in it is escaped.
  const safe = escapeDelimiters(observation.text);
  return `<tool_output name="${observation.tool}">\n${safe}\n</tool_output>`;
}

/** Between two observations, in the answer model's prompt and in one tool message (a search and its pages). */
export const OBSERVATION_SEPARATOR = '\n\n';

/** The observations the answer model reads: failed calls and empty texts are left out. */
export function usefulObservations(observations: readonly Observation[]): Observation[] {
  return observations.filter((o) => !o.isError && o.text.trim() !== '');
}

/** What introduces an observation in the answer model's prompt, before its delimited text. */
export function observationLabel(observation: Pick<Observation, 'tool' | 'input'>): string {
  return `${observation.tool}(${observation.input}):\n`;
}

/** All observations, numbered, for the answer model's prompt. */
export function formatObservations(observations: readonly Observation[]): string {
  return usefulObservations(observations)
    .map((o) => `${observationLabel(o)}${delimit(o)}`)
    .join(OBSERVATION_SEPARATOR);
}

/** Characters of usable result text in a set of observations (for the quality evaluation). */
export function resultChars(observations: Observation[]): number {
  return observations
    .filter((o) => !o.isError && !o.isEmpty)
    .reduce((sum, o) => sum + o.text.trim().length, 0);
}
