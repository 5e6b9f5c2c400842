import type { z } from 'zod';
import type { SearchResult } from '../search/types.js';
import type { UrlProvenance } from './url-provenance.js';

/** What a tool may know about the turn that runs it. */
export interface ToolContext {
  /** Search cache scope: the channel's session. */
  sessionKey: string;
  channelName?: string;
  userName?: string;
  signal: AbortSignal;
  /**
   * The URLs this turn may fetch (the user's message, this turn's search results); web_search adds
   * to it. Absent: nothing came from a trusted place, so the provenance policy refuses every URL.
   */
  provenance?: UrlProvenance;
}

export interface ToolOutput {
  /** Text for the model (delimited as data by the executor). */
  text: string;
  /** Sources found (web_search, fetch_url) for citations and the Search results step. */
  sources?: SearchResult[];
  /** True when the tool failed; the text then explains the failure to the model. */
  isError?: boolean;
  /**
   * fetch_url: `text` is the page itself, not a list of `sources`; the model reads it whole, under
   * the page's answer-wide source number.
   */
  isPage?: boolean;
  /** web_search: the answer came from the session cache. */
  cached?: boolean;
}

/** A tool registers with name, description and a zod schema for its input (seed 003's registry). */
export interface Tool<Input = unknown> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: z.ZodType<Input>;
  /** Per-call time limit; the registry aborts the call after it. */
  readonly timeoutMs?: number;
  run(input: Input, context: ToolContext): Promise<ToolOutput>;
}

/** The registry the executors use (src/tools/registry.ts implements it). */
export interface ToolRegistry {
  /** JSON-Schema definitions of the allowed tools, for the function-call model. */
  definitions(): import('../llm/types.js').ToolDefinition[];
  has(name: string): boolean;
  /**
   * Validates the raw JSON arguments and runs the tool with its timeout. Never throws: an unknown
   * tool, invalid arguments, a timeout or a failure come back as `{ isError: true, text }` for the model.
   */
  execute(name: string, rawArguments: string, context: ToolContext): Promise<ToolOutput>;
}
