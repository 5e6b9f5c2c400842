/**
 * The statistics a turn shows under its answer: one compact footer line, and a multi-line detail
 * for an expanded view. Plain text with emoji, no platform markup, so every surface can use it.
 */
import type { StringKey } from '../i18n/strings.js';
import { t } from '../i18n/translate.js';
import type { Locale } from '../i18n/locale.js';
import type { ModelStats, TurnStats } from './events.js';
import { ROLE_ICON } from './icons.js';

export type StatsLocale = Locale;

/** The statistics words in one locale, looked up once per locale (a footer needs them many times). */
const wordsByLocale = new Map<StatsLocale, ReturnType<typeof lookUpWords>>();

function words(locale: StatsLocale) {
  let found = wordsByLocale.get(locale);
  if (!found) {
    found = lookUpWords(locale);
    wordsByLocale.set(locale, found);
  }
  return found;
}

/** The statistics words in one locale (from the one string catalog). */
function lookUpWords(locale: StatsLocale) {
  const w = (key: StringKey) => t(locale, key);
  return {
    total: w('stats.total'),
    tok: w('stats.tok'),
    seconds: w('stats.seconds'),
    minutes: w('stats.minutes'),
    models: w('stats.models'),
    call: w('stats.call'),
    calls: w('stats.calls'),
    input: w('stats.input'),
    output: w('stats.output'),
    reasoning: w('stats.reasoning'),
    time: w('stats.time'),
    phases: w('stats.phases'),
    totalTokens: w('stats.total-tokens'),
    cost: w('stats.cost'),
    costUnknown: w('stats.cost-unknown'),
    toolCalls: w('stats.tool-calls'),
    searches: w('stats.searches'),
    duration: w('stats.duration'),
    cached: w('stats.cached'),
    cacheWrite: w('stats.cache-write'),
  };
}

/** Separates the parts of one model's entry, and the entries of the footer. */
const DOT = ' · ';
const BAR = ' | ';

/** Past this, and for NaN/Infinity, Intl formats (exponent-free digits are no longer exact). */
const PLAIN_DIGITS_MAX = 1e21;
let intl: Intl.NumberFormat | undefined;

/**
 * Grouped digits ("12,345"); `en-US` grouping is also what Simplified Chinese uses. Grouped by hand
 * because the first Intl formatter of a process initialises ICU (30–100 ms), which every `--once`
 * paid for one statistics line; Intl remains the fallback where plain digits would not be exact.
 */
export function formatInteger(n: number): string {
  const rounded = Math.round(n);
  if (!(Math.abs(rounded) < PLAIN_DIGITS_MAX)) {
    intl ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
    return intl.format(rounded);
  }
  const grouped = String(Math.abs(rounded)).replace(/\B(?=(\d{3})+$)/g, ',');
  return rounded < 0 || Object.is(rounded, -0) ? `-${grouped}` : grouped;
}

/** "2.1 s", "1 min 05 s" — one decimal below a minute is as precise as a person reads it. */
export function formatDuration(ms: number, locale: StatsLocale = 'en'): string {
  const w = words(locale);
  const seconds = Math.max(0, ms) / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} ${w.seconds}`;
  const whole = Math.round(seconds);
  const m = Math.floor(whole / 60);
  const s = String(whole % 60).padStart(2, '0');
  return `${m} ${w.minutes} ${s} ${w.seconds}`;
}

/** "~$0.0012" for fractions of a cent (the usual case), "~$1.23" above a dollar. */
export function formatCost(usd: number): string {
  if (usd <= 0) return '$0';
  if (usd < 0.0001) return '<$0.0001';
  if (usd < 1) return `~$${usd.toFixed(4)}`;
  return `~$${usd.toFixed(2)}`;
}

/** "1,234→567 tok", or "12,345 (9,876 cached)→567 tok" when part of the input came from a prompt cache. */
function tokens(model: ModelStats, locale: StatsLocale): string {
  const input = model.cachedInputTokens
    ? t(locale, 'stats.input-cached', {
        input: formatInteger(model.inputTokens),
        cached: formatInteger(model.cachedInputTokens),
      })
    : formatInteger(model.inputTokens);
  return `${input}→${formatInteger(model.outputTokens)} ${t(locale, 'stats.tok')}`;
}

/**
 * `🔧 deepseek/deepseek-chat ×3 · 1,234 (980 cached)→567 tok · 2.1 s | ✍️ openai/gpt-4.1-mini ×1 · … |
 * total 2,345 tok · ~$0.0012 · 4.3 s`
 */
export function formatStatsFooter(stats: TurnStats, locale: StatsLocale): string {
  const w = words(locale);
  const entries = stats.models.map((model) =>
    [
      `${ROLE_ICON[model.role]} ${model.label} ×${model.calls}`,
      tokens(model, locale),
      formatDuration(model.ms, locale),
    ].join(DOT),
  );
  const total = [`${w.total} ${formatInteger(stats.totalTokens)} ${w.tok}`];
  if (stats.costUsd !== undefined) total.push(formatCost(stats.costUsd));
  total.push(formatDuration(stats.totalMs, locale));
  return [...entries, total.join(DOT)].join(BAR);
}

/** Multi-line detail: per model calls and tokens, per phase durations, totals and cost. */
export function formatStatsDetail(stats: TurnStats, locale: StatsLocale): string {
  const w = words(locale);
  const lines: string[] = [];
  if (stats.models.length > 0) {
    lines.push(`${w.models}:`);
    for (const model of stats.models) {
      const parts = [
        `${model.calls} ${model.calls === 1 ? w.call : w.calls}`,
        `${w.input} ${formatInteger(model.inputTokens)}`,
      ];
      // Parts of the input, billed apart: read from the prompt cache (cheaper), written to it (Anthropic).
      if (model.cachedInputTokens) parts.push(`${w.cached} ${formatInteger(model.cachedInputTokens)}`);
      if (model.cacheWriteTokens) parts.push(`${w.cacheWrite} ${formatInteger(model.cacheWriteTokens)}`);
      parts.push(`${w.output} ${formatInteger(model.outputTokens)}`);
      if (model.reasoningTokens > 0) parts.push(`${w.reasoning} ${formatInteger(model.reasoningTokens)}`);
      parts.push(`${w.time} ${formatDuration(model.ms, locale)}`);
      lines.push(`• ${ROLE_ICON[model.role]} ${model.label}: ${parts.join(DOT)}`);
    }
  }
  const phases = Object.entries(stats.phases);
  if (phases.length > 0) {
    lines.push(
      `${w.phases}: ${phases.map(([name, ms]) => `${name} ${formatDuration(ms, locale)}`).join(DOT)}`,
    );
  }
  lines.push(`${w.totalTokens}: ${formatInteger(stats.totalTokens)}`);
  lines.push(`${w.cost}: ${stats.costUsd === undefined ? w.costUnknown : formatCost(stats.costUsd)}`);
  if (stats.toolCalls > 0) lines.push(`${w.toolCalls}: ${stats.toolCalls}`);
  if (stats.searches > 0) lines.push(`${w.searches}: ${stats.searches}`);
  lines.push(`${w.duration}: ${formatDuration(stats.totalMs, locale)}`);
  return lines.join('\n');
}
