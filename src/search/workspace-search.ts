/**
 * The team's own conversations as a search the core can run (issue 59). An adapter that can search
 * its workspace as the asker hands the core a `WorkspaceSearch` with the message; src/ never sees a
 * platform SDK. The adapter alone decides which places a search may reach: only places everyone who
 * will read the answer can see too (public channels in a public channel; private places only when
 * the answer goes to the asker alone), and only what the asker may see. What it returns is
 * untrusted text that other people wrote: the tool bounds it and the executors delimit it.
 */

/** One message (or file) found. */
export interface WorkspaceHit {
  /** Plain text of the message, as the platform gave it (the tool bounds and cleans it). */
  text: string;
  /** The author's display name. */
  author: string;
  /** The channel's name without "#" (or "DM", "group DM"). */
  channel: string;
  /** When it was written (ISO 8601). */
  date: string;
  /** A link to the message that people who may see it can open. */
  permalink: string;
}

export interface WorkspaceSearchResult {
  /** Which places were searched, in words ("public channels"), for the step. */
  places: string;
  hits: WorkspaceHit[];
}

export interface WorkspaceSearchOptions {
  /** Hits wanted at most. */
  limit: number;
  signal: AbortSignal;
  /** Only messages written after / before this moment. */
  after?: Date;
  before?: Date;
}

/**
 * Why a search cannot run: no token to search as the asker (a slash command), a scope or permission
 * the operator has not granted, the platform's rate limit, anything else.
 */
export type WorkspaceSearchProblem =
  | 'no-token'
  | 'missing-scope'
  | 'no-permission'
  | 'rate-limited'
  | 'failed';

export class WorkspaceSearchError extends Error {
  constructor(
    readonly problem: WorkspaceSearchProblem,
    message: string,
  ) {
    super(message);
    this.name = 'WorkspaceSearchError';
  }
}

/** What an adapter hands the core with one message when the workspace can be searched for it. */
export interface WorkspaceSearch {
  /** The platform's name for the workspace kind ("Slack", "Discord"), for the tool's words. */
  readonly platform: string;
  /** Which places a search from this message may reach, in words, before any search ran. */
  readonly places: string;
  /**
   * Set when no search can run for this message at all (no action token): the tool is not offered
   * and one notice says why.
   */
  readonly unavailable?: { problem: WorkspaceSearchProblem; reason: string };
  /** Throws WorkspaceSearchError for the problems above; an abort passes through. */
  search(query: string, options: WorkspaceSearchOptions): Promise<WorkspaceSearchResult>;
}
