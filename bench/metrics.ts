/**
 * Turns what the fakes recorded into the numbers the benchmark reports: per-turn wall / model /
 * search / overhead time, first-token-to-visible delay, Web API calls, edit rates, percentiles.
 */
import { type Span, type TurnWaits, unionMs } from './client-timing.js';
import type { FakesSnapshot, SlackCall } from './fakes/fakes.js';
import type { TurnRecord } from './harness.js';

/** Calls that write an answer's message (put its text on screen). */
export const MESSAGE_WRITES = new Set([
  'chat.postMessage',
  'chat.update',
  'chat.startStream',
  'chat.appendStream',
  'chat.stopStream',
]);

export const sleep = (msec: number) => new Promise((resolve) => setTimeout(resolve, msec));

/** Calls that change an existing message (what Slack rate-limits per message). */
const EDIT_METHODS = new Set(['chat.update', 'chat.appendStream', 'chat.stopStream']);
/** The edit-rate window: the target is "no message edited more than once per second". */
const RATE_WINDOW_MS = 1000;

export interface TurnBreakdown {
  tag: string;
  wallMs: number;
  modelMs: number;
  searchMs: number;
  /** SPEC §12 literally: wall − model − search, both measured at the fakes (server side). */
  overheadMs: number;
  /**
   * Scout's own work (primary): from Scout's HTTP server having the event to the turn's end, minus
   * time waiting on model/search at Scout's client boundary (LlmClient/SearchService) and edit
   * pacing. Loopback HTTP to the model/search and SDK parsing are not in it.
   */
  ownMs: number;
  /**
   * Own work that is not even waiting on Slack: the primary figure minus Slack Web API round trips
   * outside the model/search waits (sequential scenarios only; see ClientTimings.watchSlackCalls).
   */
  ownCpuPathMs: number;
  /** Slack Web API round trips that added to the wall time (outside model/search waits and pacing). */
  slackWaitMs: number;
  /** Secondary: wall − model/search time at the fakes − edit pacing (loopback transport and SDKs included). */
  ownWithTransportMs: number;
  /** Waiting out Slack's edit interval during the final render (deliberate, not work). */
  pacingMs: number;
  /** Event posted by the bench → Scout's HTTP server has it (loopback delivery, load generator). */
  deliveryMs: number;
  /** The finish phase of own work: core wrap-up before `done`, the final render (− pacing), after it. */
  finishSplit: { wrapUpMs: number; finalRenderMs: number; afterRenderMs: number };
  /** Model / search waits at the client boundary. */
  clientModelMs: number;
  clientSearchMs: number;
  modelCalls: number;
  searches: number;
  /** Model's first answer token → first Web API call showing answer text. */
  firstVisibleMs?: number;
  slackCalls: number;
  /** Where the overhead went, by the fakes' clocks (sums to overheadMs). */
  phases: OverheadPhases;
  /** Where Scout's own work went, by the client-side spans (sums to ownMs). */
  ownPhases: OverheadPhases;
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
  /** Own work: from Scout's HTTP server having the event to the core (the delivery is transport). */
  intakeMs: number;
  toFirstModelMs: number;
  betweenCallsMs: number;
  finishMs: number;
}

export interface Summary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}

/** The finite values, ascending (what every summary below reads). */
function sortedFinite(values: number[]): number[] {
  return values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
}

export function summarize(values: number[]): Summary {
  const sorted = sortedFinite(values);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    n: sorted.length,
    // The true median (the two middle values' mean for an even count), not the nearest rank below it.
    p50: median(sorted),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    mean: sorted.length ? sum / sorted.length : Number.NaN,
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
  };
}

/** The median: for an even count, the mean of the two middle values (`summarize`'s p50 too). */
export function median(values: number[]): number {
  const sorted = sortedFinite(values);
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  return n % 2 === 1 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
}

/**
 * A distribution-free confidence interval for the median of `values`: the order statistics
 * x(k) … x(n+1−k), with k the largest rank whose binomial(n, ½) tail leaves at least `confidence`
 * between them. No assumption about the shape of the spread: paired benchmark rounds are neither
 * normal nor many. Undefined when there are too few values for that confidence (fewer than 6 for 95 %).
 */
export function medianInterval(
  values: number[],
  confidence = 0.95,
): { low: number; high: number; coverage: number } | undefined {
  const sorted = sortedFinite(values);
  const n = sorted.length;
  // P(X < k) for X ~ binomial(n, ½), summed term by term (n is a few dozen at most).
  let below = 0;
  let term = 0.5 ** n; // P(X = 0)
  let best: { k: number; coverage: number } | undefined;
  for (let k = 1; 2 * k <= n; k++) {
    // Coverage of [x(k), x(n+1−k)]: 1 − 2·P(X < k).
    below += term;
    term = (term * (n - (k - 1))) / k; // P(X = k) from P(X = k−1)
    const coverage = 1 - 2 * below;
    if (coverage >= confidence) best = { k, coverage };
    else break;
  }
  if (!best) return undefined;
  return { low: sorted[best.k - 1]!, high: sorted[n - best.k]!, coverage: best.coverage };
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

/** Spans merged where they overlap, in order. */
function merged(spans: Span[]): Span[] {
  const out: Span[] = [];
  for (const [s, e] of [...spans].sort((a, b) => a[0] - b[0])) {
    const last = out.at(-1);
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** Own work by phase from the client-side spans (model/search waits and pacing excluded). */
function ownPhases(turn: TurnRecord, waits: TurnWaits): OverheadPhases {
  const calls = merged([...waits.model, ...waits.search]);
  const received = turn.receivedAt ?? turn.postedAt;
  const coreStart = turn.coreStartAt ?? received;
  let between = 0;
  for (let i = 1; i < calls.length; i++) between += calls[i]![0] - calls[i - 1]![1];
  const lastEnd = calls.at(-1)?.[1] ?? coreStart;
  return {
    intakeMs: coreStart - received,
    toFirstModelMs: (calls[0]?.[0] ?? Number.NaN) - coreStart,
    betweenCallsMs: between,
    finishMs: (turn.endedAt ?? Number.NaN) - lastEnd - unionMs(waits.pacing),
  };
}

const NO_WAITS: TurnWaits = { model: [], search: [], pacing: [], slack: [], finishing: false };

export function breakdown(
  turns: TurnRecord[],
  snap: FakesSnapshot,
  waitsOf: (tag: string) => TurnWaits | undefined = () => undefined,
): TurnBreakdown[] {
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
    const waits = waitsOf(turn.tag);
    const w = waits ?? NO_WAITS;
    const pacingMs = unionMs(w.pacing);
    const received = turn.receivedAt ?? turn.postedAt;
    const slackSpans = w.slack.filter((x) => Number.isFinite(x[1]));
    const waited = unionMs([...w.model, ...w.search, ...w.pacing]);
    const slackWaitMs = unionMs([...w.model, ...w.search, ...w.pacing, ...slackSpans]) - waited;
    const lastWait = Math.max(...w.model.map((x) => x[1]), ...w.search.map((x) => x[1]));
    const out: TurnBreakdown = {
      tag: turn.tag,
      wallMs,
      modelMs,
      searchMs,
      overheadMs: wallMs - modelMs - searchMs,
      ownMs: waits ? (turn.endedAt ?? Number.NaN) - received - waited : Number.NaN,
      deliveryMs: received - turn.postedAt,
      slackWaitMs,
      ownCpuPathMs: waits ? (turn.endedAt ?? Number.NaN) - received - waited - slackWaitMs : Number.NaN,
      finishSplit: {
        wrapUpMs: (turn.doneAt ?? Number.NaN) - lastWait,
        finalRenderMs: (turn.doneEndAt ?? Number.NaN) - (turn.doneAt ?? Number.NaN) - pacingMs,
        afterRenderMs: (turn.endedAt ?? Number.NaN) - (turn.doneEndAt ?? Number.NaN),
      },
      ownWithTransportMs: wallMs - modelMs - searchMs - pacingMs,
      pacingMs,
      clientModelMs: unionMs(w.model),
      clientSearchMs: unionMs(w.search),
      ownPhases: waits
        ? ownPhases(turn, w)
        : {
            intakeMs: Number.NaN,
            toFirstModelMs: Number.NaN,
            betweenCallsMs: Number.NaN,
            finishMs: Number.NaN,
          },
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
  /**
   * Most writes (post/startStream and later edits) of one message inside any 1-second window, the
   * first answer text excepted: SPEC §8 sends it immediately (a `chat.appendStream`, Tier 4).
   */
  maxEditsPerMessagePerSecond: number;
  /** The same with no exception. */
  maxEditsPerMessagePerSecondStrict: number;
  /** Shortest gap between two writes of one message, the first-answer-text exception left out. */
  minEditGapMs: number;
  /** Consecutive writes of one message closer than 1 s, by method pair ("a → b"), exception left out. */
  fastPairs: Record<string, number>;
  /** Writes closer than 1 s to the previous one only because they carried the first answer text. */
  firstTextSooner: number;
  /**
   * `chat.update`s right after a `chat.stopStream` of the same message (also exempt): a final text
   * that rewrote the stream (citations linked) is put in place as soon as the stream is closed, so
   * the final lands within a second of the last token; the stream cannot be rewritten in place.
   */
  closingSooner: number;
  /**
   * A message's last write (its final state; with a stream, the stop and the closing edit) closer
   * than 1 s to the write before it (also exempt): issue 30 writes the final as soon as the last
   * token arrives, within the platform's limits but not Scout's own per-message pacing window.
   */
  finalSooner: number;
  failedCalls: number;
}

function maxInWindow(times: number[]): number {
  let max = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while (times[end]! - times[start]! >= RATE_WINDOW_MS) start++;
    max = Math.max(max, end - start + 1);
  }
  return max;
}

export function editStats(calls: SlackCall[]): EditStats {
  const writes = calls.filter((c) => c.message !== undefined && (c.creates || EDIT_METHODS.has(c.method)));
  const byMessage = groupBy(writes, (c) => c.message);
  let maxSpec = 0;
  let maxStrict = 0;
  let minGap = Number.POSITIVE_INFINITY;
  let edits = 0;
  let firstTextSooner = 0;
  let closingSooner = 0;
  let finalSooner = 0;
  const fastPairs: Record<string, number> = {};
  for (const list of byMessage.values()) {
    const sorted = [...list].sort((a, b) => a.at - b.at);
    edits += sorted.filter((c) => EDIT_METHODS.has(c.method)).length;
    const firstText = sorted.findIndex((c) => c.hasAnswer);
    // The first answer text is exempt only where it is an edit of a message that already existed.
    const exempt = firstText > 0 ? sorted[firstText] : undefined;
    maxStrict = Math.max(maxStrict, maxInWindow(sorted.map((c) => c.at)));
    const closing = sorted.filter(
      (c, i) =>
        i > 0 &&
        c.method === 'chat.update' &&
        sorted[i - 1]!.method === 'chat.stopStream' &&
        c.at - sorted[i - 1]!.at < RATE_WINDOW_MS,
    );
    closingSooner += closing.length;
    const finals = new Set<SlackCall>();
    const lastWrite = sorted.at(-1);
    if (sorted.length > 1 && lastWrite) {
      finals.add(lastWrite);
      const beforeLast = sorted.at(-2);
      if (closing.includes(lastWrite) && beforeLast && sorted.length > 2) finals.add(beforeLast);
    }
    const firstFinal = sorted.findIndex((c) => finals.has(c));
    if (firstFinal > 0 && sorted[firstFinal]!.at - sorted[firstFinal - 1]!.at < RATE_WINDOW_MS) finalSooner++;
    const paced = sorted.filter((c) => c !== exempt && !closing.includes(c) && !finals.has(c));
    maxSpec = Math.max(maxSpec, maxInWindow(paced.map((c) => c.at)));
    if (exempt && exempt.at - sorted[firstText - 1]!.at < RATE_WINDOW_MS) firstTextSooner++;
    for (let i = 1; i < paced.length; i++) {
      const gap = paced[i]!.at - paced[i - 1]!.at;
      minGap = Math.min(minGap, gap);
      if (gap >= RATE_WINDOW_MS) continue;
      const pair = `${paced[i - 1]!.method} → ${paced[i]!.method}`;
      fastPairs[pair] = (fastPairs[pair] ?? 0) + 1;
    }
  }
  return {
    messages: byMessage.size,
    edits,
    maxEditsPerMessagePerSecond: maxSpec,
    maxEditsPerMessagePerSecondStrict: maxStrict,
    minEditGapMs: minGap,
    fastPairs,
    firstTextSooner,
    closingSooner,
    finalSooner,
    failedCalls: calls.filter((c) => !c.ok).length,
  };
}

/** A turn the bench started: the tag its event carried (and the model request with it), and its thread. */
export interface TaggedThread {
  tag: string;
  thread: string;
}

/**
 * Last token → final message, per thread: from the fake model writing the last token of *this
 * thread's own* answer stream (the model request that carried the thread's turn tag) to the last
 * Web API call that wrote *this thread's* answer message. Another turn's stream never stands in:
 * with many turns at once, some stream always ends just before any final write, which read as a
 * few milliseconds where the truth was seconds. Threads whose answer never ended, or whose answer
 * stream was not recorded, are left out (the scenarios count them as errors). `methods` narrows
 * which writes count as the end (lastTokenToStop).
 */
export function lastTokenToFinal(
  snapshot: FakesSnapshot,
  turns: TaggedThread[],
  methods: ReadonlySet<string> = MESSAGE_WRITES,
): number[] {
  const writes = groupBy(
    snapshot.slack.filter((c) => MESSAGE_WRITES.has(c.method)),
    (c) => c.thread,
  );
  const answerEnd = new Map<string, number>();
  for (const r of snapshot.llm) {
    if (r.kind !== 'answer') continue;
    answerEnd.set(r.turn, Math.max(answerEnd.get(r.turn) ?? Number.NEGATIVE_INFINITY, r.end));
  }
  const out: number[] = [];
  for (const { tag, thread } of turns) {
    const calls = writes.get(thread) ?? [];
    const lastToken = answerEnd.get(tag);
    if (lastToken === undefined || !calls.some((c) => c.hasEnd)) continue;
    // Only `methods` count as the end (all message writes by default); the thread has one of them.
    const counted = calls.filter((c) => methods.has(c.method));
    if (counted.length === 0) continue;
    const final = Math.max(...counted.map((c) => c.at));
    out.push(Math.max(0, final - lastToken));
  }
  return out;
}

/** The native stream's last call: where a streamed final's text is complete (scenario 6's breakdown). */
export const STREAM_STOP: ReadonlySet<string> = new Set(['chat.stopStream']);

/**
 * Last token → the thread's `chat.stopStream`, per thread (threads that never streamed are left
 * out): the first part of a streamed final. What follows it (Scout's closing `chat.update`, which
 * takes the stop hint away) is the rest of last token → final.
 */
export function lastTokenToStop(snapshot: FakesSnapshot, turns: TaggedThread[]): number[] {
  return lastTokenToFinal(snapshot, turns, STREAM_STOP);
}

/** Calls per method, most frequent first. */
export function callsByMethod(calls: SlackCall[]): Record<string, number> {
  const counts = new Map<string, number>();
  for (const c of calls) counts.set(c.method, (counts.get(c.method) ?? 0) + 1);
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]));
}
