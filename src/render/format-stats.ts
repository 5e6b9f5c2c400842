/**
 * The statistics a turn shows under its answer: one compact footer line, and a multi-line detail
 * for an expanded view. Plain text with emoji, no platform markup, so every surface can use it.
 */
import type { ModelStats, TurnStats } from './events.js';

export type StatsLocale = 'en' | 'zh';

export const STATS_STRINGS = {
  en: {
    total: 'total',
    tok: 'tok',
    seconds: 's',
    minutes: 'min',
    models: 'Models',
    call: 'call',
    calls: 'calls',
    input: 'in',
    output: 'out',
    reasoning: 'reasoning',
    time: 'time',
    phases: 'Phases',
    totalTokens: 'Total tokens',
    cost: 'Estimated cost',
    costUnknown: 'unknown (no price for a model)',
    toolCalls: 'Tool calls',
    searches: 'Searches',
    duration: 'Duration',
  },
  zh: {
    total: '合计',
    tok: 'tok',
    seconds: '秒',
    minutes: '分',
    models: '模型',
    call: '次调用',
    calls: '次调用',
    input: '输入',
    output: '输出',
    reasoning: '推理',
    time: '耗时',
    phases: '阶段',
    totalTokens: '总 token 数',
    cost: '估算费用',
    costUnknown: '未知（有模型没有价格）',
    toolCalls: '工具调用',
    searches: '搜索次数',
    duration: '总耗时',
  },
} as const satisfies Record<StatsLocale, Record<string, string>>;

/** One icon per model role, so the footer reads at a glance which model did what. */
export const ROLE_ICON: Record<ModelStats['role'], string> = {
  function_call: '🔧',
  answer: '✍️',
  planner: '🗺️',
  chat: '💬',
};

/** Separates the parts of one model's entry, and the entries of the footer. */
const DOT = ' · ';
const BAR = ' | ';

/** Grouped digits; `en-US` grouping is also what Simplified Chinese uses. */
const INTEGER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function formatInteger(n: number): string {
  return INTEGER.format(Math.round(n));
}

/** "2.1 s", "1 min 05 s" — one decimal below a minute is as precise as a person reads it. */
export function formatDuration(ms: number, locale: StatsLocale = 'en'): string {
  const t = STATS_STRINGS[locale];
  const seconds = Math.max(0, ms) / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} ${t.seconds}`;
  const whole = Math.round(seconds);
  const m = Math.floor(whole / 60);
  const s = String(whole % 60).padStart(2, '0');
  return `${m} ${t.minutes} ${s} ${t.seconds}`;
}

/** "~$0.0012" for fractions of a cent (the usual case), "~$1.23" above a dollar. */
export function formatCost(usd: number): string {
  if (usd <= 0) return '$0';
  if (usd < 0.0001) return '<$0.0001';
  if (usd < 1) return `~$${usd.toFixed(4)}`;
  return `~$${usd.toFixed(2)}`;
}

function tokens(input: number, output: number, locale: StatsLocale): string {
  return `${formatInteger(input)}→${formatInteger(output)} ${STATS_STRINGS[locale].tok}`;
}

/**
 * `🔧 deepseek/deepseek-chat ×3 · 1,234→567 tok · 2.1 s | ✍️ openai/gpt-4.1-mini ×1 · … |
 * total 2,345 tok · ~$0.0012 · 4.3 s`
 */
export function formatStatsFooter(stats: TurnStats, locale: StatsLocale): string {
  const t = STATS_STRINGS[locale];
  const entries = stats.models.map((model) =>
    [
      `${ROLE_ICON[model.role]} ${model.label} ×${model.calls}`,
      tokens(model.inputTokens, model.outputTokens, locale),
      formatDuration(model.ms, locale),
    ].join(DOT),
  );
  const total = [`${t.total} ${formatInteger(stats.totalTokens)} ${t.tok}`];
  if (stats.costUsd !== undefined) total.push(formatCost(stats.costUsd));
  total.push(formatDuration(stats.totalMs, locale));
  return [...entries, total.join(DOT)].join(BAR);
}

/** Multi-line detail: per model calls and tokens, per phase durations, totals and cost. */
export function formatStatsDetail(stats: TurnStats, locale: StatsLocale): string {
  const t = STATS_STRINGS[locale];
  const lines: string[] = [];
  if (stats.models.length > 0) {
    lines.push(`${t.models}:`);
    for (const model of stats.models) {
      const parts = [
        `${model.calls} ${model.calls === 1 ? t.call : t.calls}`,
        `${t.input} ${formatInteger(model.inputTokens)}`,
        `${t.output} ${formatInteger(model.outputTokens)}`,
      ];
      if (model.reasoningTokens > 0) parts.push(`${t.reasoning} ${formatInteger(model.reasoningTokens)}`);
      parts.push(`${t.time} ${formatDuration(model.ms, locale)}`);
      lines.push(`• ${ROLE_ICON[model.role]} ${model.label}: ${parts.join(DOT)}`);
    }
  }
  const phases = Object.entries(stats.phases);
  if (phases.length > 0) {
    lines.push(
      `${t.phases}: ${phases.map(([name, ms]) => `${name} ${formatDuration(ms, locale)}`).join(DOT)}`,
    );
  }
  lines.push(`${t.totalTokens}: ${formatInteger(stats.totalTokens)}`);
  lines.push(`${t.cost}: ${stats.costUsd === undefined ? t.costUnknown : formatCost(stats.costUsd)}`);
  if (stats.toolCalls > 0) lines.push(`${t.toolCalls}: ${stats.toolCalls}`);
  if (stats.searches > 0) lines.push(`${t.searches}: ${stats.searches}`);
  lines.push(`${t.duration}: ${formatDuration(stats.totalMs, locale)}`);
  return lines.join('\n');
}
