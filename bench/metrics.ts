/**
 * Turns what the fakes recorded into the numbers the benchmark reports: per-turn wall / model /
 * search / overhead time, first-token-to-visible delay, Web API calls, edit rates, percentiles.
 */
import type { FakesSnapshot, SlackCall } from './fakes/fakes.js';
import type { TurnRecord } from './harness.js';

/** Calls that change an existing message (what Slack rate-limits per message). */
const EDIT_METHODS = new Set(['chat.update', 'chat.appendStream', 'chat.stopStream']);
/** The edit-rate window: the target is "no message edited more than once per second". */
const RATE_WINDOW_MS = 1000;

export interface TurnBreakdown {
  tag: string;
  wallMs: number;
  modelMs: number;
  searchMs: number;
  /** wall − model − search: what Scout (surface, core, SDKs, store) added. */
  overheadMs: number;
  modelCalls: number;
  searches: number;
  /** Model's first answer token → first Web API call showing answer text. */
  firstVisibleMs?: number;
  slackCalls: number;
  /** Where the overhead went (sums to overheadMs). */
  phases: OverheadPhases;
  /** The last word of the answer reached Slack. */
  delivered: boolean;
  error?: string;
}

/**
 * The overhead split by when it happened: before the core got the message (Bolt, signature, dedupe,
 * users.info), from the core to the first model request (settings, history, prompt), between model
 * and search calls (tool phase glue), and after the last model byte until the turn ended (final
 * render, last Web API calls, history append).
 */
export interface OverheadPhases {
  intakeMs: number;
  toFirstModelMs: number;
  betweenCallsMs: number;
  finishMs: number;
}

export interface Summary {
  n: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}

export function summarize(values: number[]): Summary {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean: sorted.length ? sum / sorted.length : Number.NaN,
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
  };
}

function groupBy<T>(items: T[], key: (item: T) => string | undefined): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    if (k === undefined) continue;
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

export function breakdown(turns: TurnRecord[], snap: FakesSnapshot): TurnBreakdown[] {
  const llm = groupBy(snap.llm, (r) => r.turn);
  const search = groupBy(snap.search, (r) => r.turn);
  const slack = groupBy(snap.slack, (c) => c.thread);
  return turns.map((turn) => {
    const calls = llm.get(turn.tag) ?? [];
    const searches = search.get(turn.tag) ?? [];
    const modelMs = calls.reduce((n, r) => n + (r.end - r.start), 0);
    const searchMs = searches.reduce((n, r) => n + (r.end - r.start), 0);
    const wallMs = (turn.endedAt ?? Number.NaN) - turn.postedAt;
    const threadCalls = slack.get(turn.thread) ?? [];
    const intervals = [...calls, ...searches].sort((a, b) => a.start - b.start);
    const coreStart = turn.coreStartAt ?? turn.postedAt;
    let between = 0;
    for (let i = 1; i < intervals.length; i++)
      between += Math.max(0, intervals[i]!.start - intervals[i - 1]!.end);
    const phases: OverheadPhases = {
      intakeMs: coreStart - turn.postedAt,
      toFirstModelMs: (intervals[0]?.start ?? Number.NaN) - coreStart,
      betweenCallsMs: between,
      finishMs: (turn.endedAt ?? Number.NaN) - (intervals.at(-1)?.end ?? Number.NaN),
    };
    const firstToken = calls.find((r) => r.kind === 'answer')?.firstContent;
    const firstShown = threadCalls.find((c) => c.hasAnswer && c.ok)?.at;
    const delivered = threadCalls.some((c) => c.hasEnd && c.ok);
    const out: TurnBreakdown = {
      tag: turn.tag,
      wallMs,
      modelMs,
      searchMs,
      overheadMs: wallMs - modelMs - searchMs,
      modelCalls: calls.length,
      searches: searches.length,
      slackCalls: threadCalls.length,
      phases,
      delivered,
    };
    if (firstToken !== undefined && firstShown !== undefined) out.firstVisibleMs = firstShown - firstToken;
    const error = turn.error ?? (delivered ? undefined : 'answer not delivered to Slack');
    if (error) out.error = error;
    return out;
  });
}

export interface EditStats {
  messages: number;
  edits: number;
  /** Most edits of one message inside any 1-second window. */
  maxEditsPerMessagePerSecond: number;
  /** Shortest gap between two edits of one message. */
  minEditGapMs: number;
  /** Consecutive edits of one message closer than 1 s, counted by method pair ("a → b"). */
  fastPairs: Record<string, number>;
  failedCalls: number;
}

export function editStats(calls: SlackCall[]): EditStats {
  const writes = calls.filter((c) => c.message !== undefined && (c.creates || EDIT_METHODS.has(c.method)));
  const byMessage = groupBy(writes, (c) => c.message);
  let maxInWindow = 0;
  let minGap = Number.POSITIVE_INFINITY;
  let edits = 0;
  const fastPairs: Record<string, number> = {};
  for (const list of byMessage.values()) {
    const sorted = list.filter((c) => EDIT_METHODS.has(c.method)).sort((a, b) => a.at - b.at);
    const times = sorted.map((c) => c.at);
    edits += times.length;
    for (let i = 1; i < sorted.length; i++) {
      if (times[i]! - times[i - 1]! >= RATE_WINDOW_MS) continue;
      const pair = `${sorted[i - 1]!.method} → ${sorted[i]!.method}`;
      fastPairs[pair] = (fastPairs[pair] ?? 0) + 1;
    }
    let start = 0;
    for (let end = 0; end < times.length; end++) {
      while (times[end]! - times[start]! >= RATE_WINDOW_MS) start++;
      maxInWindow = Math.max(maxInWindow, end - start + 1);
      if (end > 0) minGap = Math.min(minGap, times[end]! - times[end - 1]!);
    }
  }
  return {
    messages: byMessage.size,
    edits,
    maxEditsPerMessagePerSecond: maxInWindow,
    minEditGapMs: minGap,
    fastPairs,
    failedCalls: calls.filter((c) => !c.ok).length,
  };
}

/** Calls per method, most frequent first. */
export function callsByMethod(calls: SlackCall[]): Record<string, number> {
  const counts = new Map<string, number>();
  for (const c of calls) counts.set(c.method, (counts.get(c.method) ?? 0) + 1);
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]));
}
