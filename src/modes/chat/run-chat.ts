/**
 * Chat mode: one streamed answer. With the channel's search switch on, the user's message is the
 * query and the results are injected as a numbered list the model cites with [n].
 */
import { heard } from '../../turn-steps.js';
import { SearchError } from '../../errors.js';
import { joinText, phrase } from '../../i18n/phrase.js';
import type { ChatMessage } from '../../llm/types.js';
import type { Source } from '../../render/events.js';
import { linkCitations, SourceRegistry } from '../../search/citations.js';
import { LiveCitations } from '../../search/live-citations.js';
import { formatSearchContext } from '../../search/format-results.js';
import { UsageTracker } from '../turn/usage-tracker.js';
import { consumeStream } from '../turn/consume-stream.js';
import { resultsTitle } from '../turn/results-title.js';
import { ThinkingStep } from '../turn/thinking-step.js';
import { emitFinishNotice } from '../turn/finish-notice.js';
import { finishStats } from '../turn/finish-stats.js';
import type { ModeRunner, TurnContext } from '../types.js';
import { escapeDelimiters } from '../../tools/untrusted-text.js';
import { WORKSPACE_SEARCH_TOOL_NAME } from '../../tools/workspace-search-tool.js';
import { turnToolContext } from '../turn/turn-tool-context.js';
import { promptRoom } from '../turn/context-room.js';
import { searchContextWithin } from './search-context-within.js';

/** Results shown in the collapsed results step (the rest are in the prompt). */
const PREVIEW_RESULTS = 3;

export const runChat: ModeRunner = async (ctx) => {
  const usage = new UsageTracker();
  const registry = new SourceRegistry();
  const found = ctx.settings.search
    ? [
        ...(await searchForChat(ctx, usage, registry)),
        ...(await searchWorkspaceForChat(ctx, usage, registry)),
      ]
    : [];
  const system = ctx.prompts.render(
    'chat.system',
    { date: new Date().toISOString().slice(0, 10), locale: ctx.locale },
    ctx.llm.tool.config.provider,
  );
  const requestWith = (sources: readonly Source[]): ChatMessage[] => [
    { role: 'system', content: system },
    ...ctx.history,
    {
      role: 'user',
      content:
        sources.length > 0
          ? `${ctx.message.text}\n\n<search_results>\n${escapeDelimiters(formatSearchContext(sources, { query: ctx.message.text }))}\n</search_results>`
          : ctx.message.text,
    },
  ];
  const sources = await searchContextWithin(
    found,
    promptRoom(ctx.config.env.LLM_CONTEXT_WINDOW, ctx.llm.tool.config),
    requestWith,
  );
  if (sources.length < found.length)
    ctx.logger.info(
      { found: found.length, sent: sources.length },
      'chat search results cut to fit the context window',
    );
  const messages = requestWith(sources);
  const started = Date.now();
  ctx.emit({ type: 'phase', role: 'chat', label: ctx.llm.tool.label });
  const thinking = new ThinkingStep('chat-thinking', ctx.emit);
  // Markers are linked as they stream, the way the final text links them (no raw [n] shows).
  const live = new LiveCitations(sources);
  let answer: Awaited<ReturnType<typeof consumeStream>>;
  try {
    answer = await consumeStream(ctx.llm.tool, 'chat', { messages, signal: ctx.signal }, usage, {
      onReasoning: (text) => thinking.append(text),
      onText: (text) => {
        // The thought collapses once, on the first answer chunk.
        thinking.close();
        const linked = live.push(text);
        if (linked) ctx.emit({ type: 'text-delta', text: linked });
      },
    });
    thinking.close();
  } catch (err) {
    // What the stream had written stays in the view whole: the linker's held-back end goes out too.
    const rest = live.flush();
    if (rest) ctx.emit({ type: 'text-delta', text: rest });
    // An error mid-thinking still closes the step; the core shows the friendly message, and the
    // footer counts the tokens the provider reported before the failure.
    thinking.close(true);
    usage.addPhase('answer', Date.now() - started);
    finishStats(ctx, usage);
    throw err;
  }
  usage.addPhase('answer', Date.now() - started);
  const linked = linkCitations(answer.text, sources, ctx.locale);
  ctx.emit({ type: 'answer', text: linked.shown, sources: linked.cited });
  emitFinishNotice(ctx.emit, answer.finishReason, ctx.llm.tool, 'tool');
  const stats = finishStats(ctx, usage);
  return { answer: linked.text, stats };
};

/** Runs the chat-mode search as visible steps. A failed search is shown and the answer goes on without it. */
async function searchForChat(
  ctx: TurnContext,
  usage: UsageTracker,
  registry: SourceRegistry,
): Promise<Source[]> {
  const query = ctx.message.text.slice(0, 400);
  if (!ctx.search.available) {
    ctx.emit({
      type: 'step-start',
      id: 'search-unavailable',
      kind: 'notice',
      title: phrase('search.unavailable'),
      status: 'info',
    });
    ctx.emit({ type: 'step-finish', id: 'search-unavailable', status: 'info', collapse: false });
    return [];
  }
  ctx.emit({ type: 'status', text: phrase('status.searching') });
  ctx.emit({
    type: 'step-start',
    id: 'search-1',
    kind: 'search',
    title: phrase('step.searching', { query }),
  });
  const started = Date.now();
  try {
    const outcome = await heard(
      ctx.hearStep,
      { kind: 'search', provider: ctx.search.providerName, query },
      () => ctx.search.search(query, { sessionKey: ctx.sessionKey, signal: ctx.signal }),
    );
    usage.searches += 1;
    const sources = registry.add(outcome.results);
    ctx.emit({
      type: 'step-finish',
      id: 'search-1',
      status: 'done',
      title: phrase('step.searched', { query }),
    });
    // Same wording as agent mode's results step ("Found 3 results", seed 000 "找到的结果数量").
    ctx.emit({
      type: 'step-start',
      id: 'search-1-results',
      kind: 'search-results',
      title: outcome.cached
        ? joinText([resultsTitle(sources.length), phrase('step.search-cached')])
        : resultsTitle(sources.length),
      body: sources
        .slice(0, PREVIEW_RESULTS)
        .map((s) => `${s.n}. ${s.title} — ${s.url}${s.snippet ? `\n   ${s.snippet}` : ''}`)
        .join('\n'),
    });
    ctx.emit({ type: 'step-finish', id: 'search-1-results', status: 'done' });
    return sources;
  } catch (err) {
    if (!(err instanceof SearchError)) throw err;
    ctx.logger.warn({ err: err.message, provider: err.provider }, 'chat search failed');
    ctx.emit({
      type: 'step-finish',
      id: 'search-1',
      status: 'failed',
      title: phrase('step.search-failed', { query }),
      body: err.message,
    });
    return [];
  } finally {
    usage.addPhase('search', Date.now() - started);
    ctx.emit({ type: 'status', text: null });
  }
}

/**
 * With search on, the question is searched in the team's own messages too (issue 59), where the
 * channel's tool rules allow search_workspace and the message can search its workspace: through the
 * very tool agent mode calls, so the same places, bounds and refusals apply; its messages are
 * numbered after the web results. A refusal (a scope, the rate limit) is the failed step, and the
 * answer goes on without it.
 */
async function searchWorkspaceForChat(
  ctx: TurnContext,
  usage: UsageTracker,
  registry: SourceRegistry,
): Promise<Source[]> {
  const workspace = ctx.message.workspaceSearch;
  if (!workspace || workspace.unavailable || !ctx.tools.has(WORKSPACE_SEARCH_TOOL_NAME)) return [];
  const query = ctx.message.text.slice(0, 400);
  const id = 'workspace-search-1';
  ctx.emit({ type: 'status', text: phrase('status.searching') });
  ctx.emit({ type: 'step-start', id, kind: 'search', title: phrase('step.searching', { query }) });
  const started = Date.now();
  try {
    const output = await ctx.tools.execute(
      WORKSPACE_SEARCH_TOOL_NAME,
      JSON.stringify({ query }),
      turnToolContext(ctx, ctx.signal),
    );
    // The tool's first line says which places were searched and how many messages were found.
    const summary = output.text.split('\n')[0] ?? '';
    if (output.isError) {
      ctx.emit({
        type: 'step-finish',
        id,
        status: 'failed',
        title: phrase('step.search-failed', { query }),
        body: summary,
      });
      return [];
    }
    usage.searches += 1;
    const sources = registry.add(output.sources ?? []);
    ctx.emit({
      type: 'step-finish',
      id,
      status: 'done',
      title: phrase('step.searched', { query }),
      body: summary,
    });
    return sources;
  } finally {
    usage.addPhase('search', Date.now() - started);
    ctx.emit({ type: 'status', text: null });
  }
}
