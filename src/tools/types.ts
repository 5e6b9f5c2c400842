import type * as z from '../schema/zod.js';
import type { HearStep } from '../turn-steps.js';
import type { SearchResult } from '../search/types.js';
import type { WorkspaceSearch } from '../search/workspace-search.js';
import type { UrlProvenance } from './url-provenance.js';

/** What a tool may know about the turn that runs it. */
export interface ToolContext {
  /** Search cache scope: the channel's session. */
  sessionKey: string;
  /** The turn's conversation: readings a call starts (PDFs) share the reader slots fairly by it. */
  conversationId?: string;
  channelName?: string;
  userName?: string;
  /** The asker's message: fetch_url's default focus when a page is longer than its budget. */
  question?: string;
  /**
   * Characters fetch_url hands the model per page, when less than its own budget (result pages read
   * in a round); the parts the page's header names stay those of its own budget.
   */
  maxPageChars?: number;
  /** Wall-clock bound on fetch_url's download, when less than its own (result pages read in a round). */
  maxFetchMs?: number;
  signal: AbortSignal;
  /**
   * Set by the registry for the call it runs: stops the call's time limit until the returned function
   * is called, for a wait that is not the tool's own work (fetch_url's page queued for a reader).
   */
  pauseTimeLimit?: () => () => void;
  /**
   * The URLs this turn may fetch (the user's message, this turn's search results); web_search adds
   * to it. Absent: nothing came from a trusted place, so the provenance policy refuses every URL.
   */
  provenance?: UrlProvenance;
  /**
   * Asks the asker to approve a call that changes something (MCP tools without `readOnlyHint`).
   * Absent where nobody can be asked (`--once` without `--yes`): such calls are refused.
   */
  confirm?: (request: ToolApprovalRequest) => Promise<boolean>;
  /** The asker's workspace, searchable as the asker (search_workspace); absent where the surface cannot. */
  workspaceSearch?: WorkspaceSearch;
  /** The turn's scope hears the steps this call makes (traces: web_search's search, under the call's span). */
  hearStep?: HearStep;
  /** Fields on this call's log lines (traces: its trace and span id). */
  logFields?: Record<string, string>;
}

/** What the asker sees when a tool call waits for Approve / Deny. */
export interface ToolApprovalRequest {
  /** The name the model called (`github__create_issue`). */
  tool: string;
  /** The MCP server offering it. */
  server?: string;
  /** The server's human title for the tool, when it gave one. */
  title?: string;
  /** The arguments as pretty JSON, whole up to a bound; `argumentsCut` counts what was left off. */
  arguments: string;
  /** Characters of the arguments left off `arguments` (0 or absent: it is the exact call). */
  argumentsCut?: number;
  /**
   * Where the request came from: the model chose the call while answering this message. Text the
   * model read (earlier thread messages, pages, tool results) can ask for calls the asker never
   * wanted, so the prompt says whose message it was and what else was read.
   */
  origin?: ToolCallOrigin;
}

export interface ToolCallOrigin {
  /** The asker's display name. */
  asker?: string;
  /** The start of the message that started the turn, on one line. */
  message: string;
  /** The turn read earlier messages of the thread or reply chain as context. */
  readEarlier?: boolean;
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
  /** fetch_url: the parts a call with `part` reads the document in (1 when it is read whole). */
  parts?: number;
  /** web_search: the answer came from the session cache. */
  cached?: boolean;
}

/**
 * A tool registers with name, description and a zod schema for its input (seed 003's registry): any
 * zod 4 schema, zod/mini (Scout's own tools) or classic.
 */
export interface Tool<Input = unknown> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: z.core.$ZodType<Input>;
  /** Per-call time limit; the registry aborts the call after it. */
  readonly timeoutMs?: number;
  /**
   * A JSON Schema given as is (MCP tools): the model sees it instead of one converted from
   * `inputSchema`, which then only checks arguments against it.
   */
  readonly parameters?: Record<string, unknown>;
  /** The MCP server offering the tool; absent for Scout's own tools. */
  readonly server?: string;
  /** Shown with the approval request (MCP tool titles). */
  readonly title?: string;
  /** The call may change something: the registry asks `ToolContext.confirm` before running it. */
  readonly needsApproval?: boolean;
  run(input: Input, context: ToolContext): Promise<ToolOutput>;
}

/** Tools that come and go at run time (MCP servers): read again on every turn. */
export interface ToolSource {
  /** The tools offered now. Returns the same array until they change (the registry caches on it). */
  tools(): Tool[];
  /** Starts what is not running yet, within its own time bound; resolves with notices for the turn. */
  prepare?(signal: AbortSignal): Promise<string[]>;
  close?(): Promise<void>;
}

/** A tool as `/tools` lists it. */
export interface ToolInfo {
  name: string;
  description: string;
  server?: string;
  needsApproval: boolean;
}

/** Which of the allowed tools one request may offer (a channel's rules, the question). */
export interface ToolView {
  /** A channel's rules: false hides the tool. */
  enabled?: (name: string) => boolean;
  /** Enabled by name or pattern in the channel: chosen first when over the cap. */
  preferred?: (name: string) => boolean;
  /** The user's message: over the cap, the most relevant tools are chosen. */
  question?: string;
}

/** The registry the executors use (src/tools/registry.ts implements it). */
export interface ToolRegistry {
  /**
   * JSON-Schema definitions of the allowed tools for the function-call model: at most `maxTools`,
   * chosen for `view` when there are more.
   */
  definitions(view?: ToolView): import('../llm/types.js').ToolDefinition[];
  /** AGENT_MAX_TOOLS: the most tools one request offers. */
  readonly maxTools?: number;
  has(name: string): boolean;
  /**
   * Validates the raw JSON arguments and runs the tool with its timeout. Never throws: an unknown
   * tool, invalid arguments, a timeout or a failure come back as `{ isError: true, text }` for the model.
   */
  execute(name: string, rawArguments: string, context: ToolContext): Promise<ToolOutput>;
  /** Every tool AGENT_TOOLS allows, with its server (for `/tools`). */
  list?(): ToolInfo[];
  /** Starts lazy tool sources before a turn that may call tools; resolves with notices. */
  prepare?(signal: AbortSignal): Promise<string[]>;
  /** Closes the tool sources (MCP servers) at shutdown. */
  close?(): Promise<void>;
}
