/**
 * Runs the tool calls of one ReAct step concurrently (Promise.all) and shows each live: a web_search
 * becomes a Search step (query, running → done/failed, cached marked) followed by a Search results
 * step (count and top 3, collapsed); any other tool a Tool step. Results come back in call order.
 */
import { joinText, phrase } from '../../i18n/phrase.js';
import type { ToolCall } from '../../llm/types.js';
import type { Locale } from '../../surface.js';
import type { ToolOutput } from '../../tools/types.js';
import { parseArgs } from '../turn/agent-trace.js';
import { queryOf } from './loop-detector.js';
import { type Observation, toObservation } from '../turn/observations.js';
import { resultsTitle } from '../turn/results-title.js';
import { type PageRead, pageObservations, readTopResults } from './read-top-results.js';
import type { ToolRoundContext } from './tool-round-context.js';

/** The Search results step shows this many results (seed 000: "前 3 条结果"). */
const RESULTS_SHOWN = 3;
/** A Tool step shows at most this much of a tool's output; the model gets all of it. */
const TOOL_PREVIEW_CHARS = 500;
const SNIPPET_PREVIEW_CHARS = 160;

export const WEB_SEARCH = 'web_search';

/**
 * What the function-call model reads instead of the result of a call it already made, in the turn's
 * language. Model text, not user text: no step shows it, so it is not in the user catalog's path.
 */
const REPEATED_CALL_NOTE: Readonly<Record<Locale, string>> = {
  en: 'This exact call was already made; see the earlier result.',
  zh: '该调用已执行过，请参考之前的结果。',
};

export interface ToolRoundResult {
  call: ToolCall;
  output: ToolOutput;
  observation: Observation;
  repeated: boolean;
  /** Result pages read for a web_search (readResults), as numbered sources. */
  pages?: Observation[];
}

/** Runs `fresh` calls concurrently; `repeated` ones get a short note instead of running again. */
export async function runToolCalls(
  calls: ToolCall[],
  repeated: ReadonlySet<ToolCall>,
  ctx: ToolRoundContext,
): Promise<ToolRoundResult[]> {
  const { locale, emit } = ctx;
  const started = calls.map((call, index) => {
    const id = `${ctx.stepPrefix}-${index}`;
    if (repeated.has(call)) return { call, id, promise: Promise.resolve(repeatNote(locale)), ms: 0 };
    const query = call.name === WEB_SEARCH ? (queryOf(call) ?? call.arguments) : undefined;
    if (query !== undefined) {
      emit({
        type: 'step-start',
        id,
        kind: 'search',
        title: phrase('step.searching', { query }),
        status: 'running',
      });
    } else {
      emit({
        type: 'step-start',
        id,
        kind: 'tool',
        title: call.name,
        body: call.arguments,
      });
    }
    if (ctx.verbose) ctx.logger.info({ tool: call.name, input: call.arguments }, 'agent action');
    const t0 = Date.now();
    const entry = {
      call,
      id,
      ms: 0,
      promise: Promise.resolve(repeatNote(locale)),
      pages: Promise.resolve<PageRead[]>([]),
    };
    entry.promise = ctx.tools.execute(call.name, call.arguments, ctx.toolContext).then((output) => {
      entry.ms = Date.now() - t0;
      finishStep(id, call, query, output, ctx);
      // The result pages are opened as soon as this search is back, while others still run.
      if (query !== undefined && ctx.readResults)
        entry.pages = readTopResults(output, query, id, ctx, ctx.readResults);
      return output;
    });
    return entry;
  });

  const outputs = await Promise.all(started.map((s) => s.promise));
  const pagesRead = await Promise.all(started.map((s) => ('pages' in s ? s.pages : [])));
  const results: ToolRoundResult[] = [];
  for (const [index, output] of outputs.entries()) {
    const entry = started[index]!;
    const isRepeat = repeated.has(entry.call);
    const input =
      entry.call.name === WEB_SEARCH ? (queryOf(entry.call) ?? entry.call.arguments) : entry.call.arguments;
    // Numbers are assigned here, in call order, so they do not depend on which search finished first.
    const observation = toObservation(entry.call.name, input, output, ctx.numbering);
    if (!isRepeat) {
      ctx.tracker.toolCalls += 1;
      if (entry.call.name === WEB_SEARCH) ctx.tracker.searches += 1;
      ctx.trace.recordTool(entry.call.name, entry.ms, output.isError === true);
      if (entry.call.name === WEB_SEARCH && !output.isError)
        showResults(`${entry.id}-results`, output, observation, ctx);
    }
    ctx.trace.addStep({
      ...(index === 0 && ctx.thought ? { thought: ctx.thought } : {}),
      action: { type: 'action', tool: entry.call.name, args: parseArgs(entry.call.arguments) },
      observation: observation.text,
      toolOutput: {
        sources: output.sources?.length ?? 0,
        cached: output.cached === true,
        repeated: isRepeat,
      },
      elapsedMs: entry.ms,
      ...(output.isError ? { error: output.text } : {}),
    });
    if (ctx.verbose)
      ctx.logger.info({ tool: entry.call.name, output: observation.text }, 'agent observation');
    // Pages are numbered after their search, so a page keeps its result's number.
    const pages = pageObservations(pagesRead[index] ?? [], ctx);
    results.push({
      call: entry.call,
      output,
      observation,
      repeated: isRepeat,
      ...(pages.length > 0 ? { pages } : {}),
    });
  }
  return results;
}

function repeatNote(locale: Locale): ToolOutput {
  return { text: REPEATED_CALL_NOTE[locale] };
}

function finishStep(
  id: string,
  call: ToolCall,
  query: string | undefined,
  output: ToolOutput,
  ctx: ToolRoundContext,
) {
  const { emit } = ctx;
  if (query !== undefined) {
    const title = output.isError
      ? phrase('step.search-failed', { query })
      : output.cached
        ? joinText([phrase('step.searched', { query }), phrase('step.search-cached')])
        : phrase('step.searched', { query });
    emit({
      type: 'step-finish',
      id,
      status: output.isError ? 'failed' : 'done',
      title,
      ...(output.isError ? { body: output.text } : {}),
    });
    return;
  }
  const preview =
    output.text.length > TOOL_PREVIEW_CHARS ? `${output.text.slice(0, TOOL_PREVIEW_CHARS)}…` : output.text;
  emit({
    type: 'step-finish',
    id,
    status: output.isError ? 'failed' : 'done',
    ...(output.isError ? { title: phrase('step.tool-failed', { name: call.name }) } : {}),
    body: `${call.arguments}\n→ ${preview}`,
  });
}

function showResults(id: string, output: ToolOutput, observation: Observation, ctx: ToolRoundContext) {
  const sources = output.sources ?? [];
  const lines = observation.sources.slice(0, RESULTS_SHOWN).map((s) => {
    const text = s.snippet ?? '';
    const snippet = text.length > SNIPPET_PREVIEW_CHARS ? `${text.slice(0, SNIPPET_PREVIEW_CHARS)}…` : text;
    return `[${s.n}] ${s.title}\n${snippet}`;
  });
  ctx.emit({
    type: 'step-start',
    id,
    kind: 'search-results',
    title: resultsTitle(sources.length),
    body: lines.join('\n\n'),
    status: 'done',
  });
  ctx.emit({ type: 'step-finish', id, status: 'done', collapse: true });
}
