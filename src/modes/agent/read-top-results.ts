/**
 * Reading the top results of a search within the same round (AGENT_READ_RESULTS): snippets are cut
 * at 200 characters and answers resting on them miss the specifics, so the first few result pages
 * are opened in parallel with fetch_url (the same address guard, fetch policy and reader), each cut
 * to a short budget of the passages that match the search, and their text reaches both models as
 * numbered sources. A page that is slow, refused or unreadable is simply left out: the snippet stays.
 */
import { phrase } from '../../i18n/phrase.js';
import { FETCH_URL_TOOL_NAME } from '../../tools/fetch-url-tool.js';
import type { ToolOutput } from '../../tools/types.js';
import { type Observation, toObservation } from '../turn/observations.js';
import type { ReadResultsPolicy, ToolRoundContext } from './tool-round-context.js';

/**
 * What the model gets of each page read this way, a fifth of the page budget (FETCH_MAX_CHARS). The
 * page's header still counts the page budget's parts, the ones a call with `part` returns.
 */
export const READ_RESULT_CHARS = 3_000;
/**
 * A result page not downloaded within this is left out, so a slow site cannot hold the round; what
 * arrived in time is read, however busy the reader is (its own CPU limit bounds the reading).
 */
export const READ_RESULT_TIMEOUT_MS = 6_000;

export interface PageRead {
  url: string;
  output: ToolOutput;
  ms: number;
}

/** Opens the top `policy.count` results of one search in parallel; resolves with the pages that worked. */
export async function readTopResults(
  output: ToolOutput,
  query: string,
  stepId: string,
  ctx: ToolRoundContext,
  policy: ReadResultsPolicy,
): Promise<PageRead[]> {
  if (policy.count <= 0 || output.isError || !ctx.tools.has(FETCH_URL_TOOL_NAME)) return [];
  const urls = (output.sources ?? [])
    .map((s) => s.url)
    .filter((url) => !policy.read.has(url))
    .slice(0, policy.count);
  for (const url of urls) policy.read.add(url);
  const pages = await Promise.all(
    urls.map(async (url, index) => {
      const id = `${stepId}-read-${index}`;
      ctx.emit({
        type: 'step-start',
        id,
        kind: 'tool',
        title: phrase('step.reading', { url: shortUrl(url) }),
      });
      const started = Date.now();
      const result = await ctx.tools.execute(FETCH_URL_TOOL_NAME, JSON.stringify({ url, focus: query }), {
        ...ctx.toolContext,
        maxPageChars: READ_RESULT_CHARS,
        maxFetchMs: READ_RESULT_TIMEOUT_MS,
      });
      const ms = Date.now() - started;
      ctx.trace.recordTool(FETCH_URL_TOOL_NAME, ms, result.isError === true);
      ctx.emit({
        type: 'step-finish',
        id,
        status: result.isError ? 'failed' : 'done',
        title: phrase(result.isError ? 'step.read-failed' : 'step.read', { url: shortUrl(url) }),
        collapse: true,
      });
      return { url, output: result, ms };
    }),
  );
  if (ctx.toolContext.signal.aborted) return [];
  return pages.filter((page) => !page.output.isError);
}

/** The pages as observations numbered like their search results (a page keeps its result's number). */
export function pageObservations(pages: PageRead[], ctx: ToolRoundContext): Observation[] {
  return pages.map((page) => toObservation(FETCH_URL_TOOL_NAME, page.url, page.output, ctx.numbering));
}

function shortUrl(url: string): string {
  try {
    const u = new URL(url);
    const path = u.pathname.length > 40 ? `${u.pathname.slice(0, 39)}…` : u.pathname;
    return `${u.hostname}${path === '/' ? '' : path}`;
  } catch {
    return url.slice(0, 60);
  }
}
