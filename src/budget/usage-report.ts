/**
 * `/usage` (issue 29, item 2): the asker's own spend, tokens and answers for today, 7 and 30 days,
 * with spend per day as a sparkline (every surface) and, lazily, as a PNG chart (surfaces that show
 * images). Admins (ADMIN_USERS) also see the top channels, users, models and tools over 30 days.
 * Read from the per-day counters the turns write (src/store/usage-counters.ts).
 */
import type { Config } from '../config/env.js';
import { joinText, type Phrase, phrase, type UserText } from '../i18n/phrase.js';
import type { Stores } from '../store/types.js';
import { DAY_MS, type UsageDimension } from '../store/usage-counters.js';
import type { CommandReply, Locale } from '../surface.js';
import { formatTokens, formatUsd, sparkline } from './format.js';
import { renderSpendChart } from './usage-chart.js';

const DAYS = 30;
/** Entries per top list. */
const TOP = 5;

type Totals = Map<string, Record<string, number>>;

/** field "id\tmetric" → { id: { metric: value } }, summed over the given days. */
function sumDays(days: Record<string, number>[]): Totals {
  const totals: Totals = new Map();
  for (const hash of days) {
    for (const [field, value] of Object.entries(hash)) {
      const tab = field.lastIndexOf('\t');
      if (tab <= 0) continue;
      const id = field.slice(0, tab);
      const metric = field.slice(tab + 1);
      const entry = totals.get(id) ?? {};
      entry[metric] = (entry[metric] ?? 0) + value;
      totals.set(id, entry);
    }
  }
  return totals;
}

export interface UsageReportInput {
  config: Config;
  stores: Stores;
  userId: string;
  /** Formats the token counts; the words are phrases, said by whoever shows the report. */
  locale: Locale;
}

/** The report as lines of phrases (`text`), said by the adapter in the locale it asked in. */
export async function usageReport(input: UsageReportInput): Promise<CommandReply> {
  const { config, stores, userId, locale } = input;
  const env = config.env;
  const admin = env.ADMIN_USERS.includes(userId);
  let today: number;
  let perDay: Record<string, number>[][];
  const dims: UsageDimension[] = admin ? ['u', 'c', 'm', 't'] : ['u'];
  try {
    today = Math.floor((await stores.usage.now()) / DAY_MS);
    const days = Array.from({ length: DAYS }, (_, i) => today - DAYS + 1 + i);
    perDay = await Promise.all(dims.map((dim) => Promise.all(days.map((d) => stores.usage.read(d, dim)))));
  } catch {
    return { text: phrase('report.unavailable'), changed: false };
  }
  const userDays = perDay[0] ?? [];
  const mine = userDays.map((hash) => ({
    usd: hash[`${userId}\tusd`] ?? 0,
    tokens: hash[`${userId}\ttokens`] ?? 0,
    turns: hash[`${userId}\tturns`] ?? 0,
  }));
  const span = (n: number) => {
    const slice = mine.slice(-n);
    return phrase('report.line', {
      usd: formatUsd(slice.reduce((s, d) => s + d.usd, 0)),
      tokens: formatTokens(
        slice.reduce((s, d) => s + d.tokens, 0),
        locale,
      ),
      turns: slice.reduce((s, d) => s + d.turns, 0),
    });
  };
  // Spend per day; tokens where nothing was priced (models without a price).
  const bySpend = mine.some((d) => d.usd > 0);
  const series = mine.map((d) => (bySpend ? d.usd : d.tokens));
  const max = Math.max(0, ...series);
  const lines: UserText[] = [
    phrase('report.title'),
    bullet(phrase('report.today'), span(1)),
    bullet(phrase('report.week'), span(7)),
    bullet(phrase('report.month'), span(30)),
    phrase(bySpend ? 'report.chart' : 'report.chart-tokens', {
      max: bySpend ? formatUsd(max) : formatTokens(max, locale),
    }),
    `\`${sparkline(series)}\``,
  ];
  const limits = limitParts(config, locale);
  if (limits.length > 0) {
    lines.push(phrase('report.limits', { limits: joinText(limits, ' · ') }));
    if (env.BUDGET_EXEMPT_ADMINS && admin) lines.push(phrase('report.exempt'));
  }
  if (admin) {
    const [, channels = [], models = [], tools = []] = perDay;
    lines.push('', ...topList(locale, 'report.top-channels', sumDays(channels)));
    lines.push('', ...topList(locale, 'report.top-users', sumDays(userDays)));
    lines.push('', ...topList(locale, 'report.top-models', sumDays(models)));
    lines.push('', ...topList(locale, 'report.top-tools', sumDays(tools)));
  }
  const first = new Date((today - DAYS + 1) * DAY_MS).toISOString().slice(0, 10);
  const last = new Date(today * DAY_MS).toISOString().slice(0, 10);
  return {
    text: joinText(lines, '\n'),
    changed: false,
    image: async () => ({
      name: 'usage.png',
      alt: phrase('report.chart-alt'),
      data: await renderSpendChart(series, {
        unit: bySpend ? 'usd' : 'tokens',
        from: first,
        to: last,
      }),
    }),
  };
}

/** "• Today: $0.40 · …" */
function bullet(label: UserText, value: UserText): Phrase {
  return joinText(['• ', label, ': ', value]);
}

function limitParts(config: Config, locale: Locale): Phrase[] {
  const env = config.env;
  const parts: Phrase[] = [];
  if (env.BUDGET_USER_DAILY_USD !== undefined)
    parts.push(phrase('report.limit.user-usd', { limit: formatUsd(env.BUDGET_USER_DAILY_USD) }));
  if (env.BUDGET_USER_DAILY_TOKENS !== undefined)
    parts.push(
      phrase('report.limit.user-tokens', { limit: formatTokens(env.BUDGET_USER_DAILY_TOKENS, locale) }),
    );
  if (env.BUDGET_CHANNEL_DAILY_USD !== undefined)
    parts.push(phrase('report.limit.channel-usd', { limit: formatUsd(env.BUDGET_CHANNEL_DAILY_USD) }));
  if (env.BUDGET_CHANNEL_DAILY_TOKENS !== undefined)
    parts.push(
      phrase('report.limit.channel-tokens', {
        limit: formatTokens(env.BUDGET_CHANNEL_DAILY_TOKENS, locale),
      }),
    );
  if (env.MAX_TURNS_PER_USER > 0)
    parts.push(phrase('report.limit.concurrent', { limit: env.MAX_TURNS_PER_USER }));
  return parts;
}

/** The top entries by spend, then tokens, then calls; ids in code spans (they are opaque keys). */
function topList(
  locale: Locale,
  title: 'report.top-channels' | 'report.top-users' | 'report.top-models' | 'report.top-tools',
  totals: Totals,
): UserText[] {
  const rows = [...totals.entries()].sort(
    ([, a], [, b]) =>
      (b.usd ?? 0) - (a.usd ?? 0) || (b.tokens ?? 0) - (a.tokens ?? 0) || (b.calls ?? 0) - (a.calls ?? 0),
  );
  const out: UserText[] = [phrase(title)];
  if (rows.length === 0) out.push(joinText(['• ', phrase('report.none')]));
  for (const [id, m] of rows.slice(0, TOP)) {
    const usd = formatUsd(m.usd ?? 0);
    const tokens = formatTokens(m.tokens ?? 0, locale);
    const calls = phrase('report.tool-calls', { calls: m.calls ?? 0 });
    const summary =
      title === 'report.top-tools'
        ? calls
        : title === 'report.top-models'
          ? joinText([`${usd} · ${tokens} tok · `, calls])
          : phrase('report.line', { usd, tokens, turns: m.turns ?? 0 });
    out.push(joinText([`• \`${id.replace(/`/g, "'")}\` — `, summary]));
  }
  return out;
}
