/** Numbers as `/usage` and the limit messages show them. */
import type { Locale } from '../surface.js';

/** "$0.0123" below a dollar (small turns stay visible), "$12.34" above. */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  return usd < 1 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

export function formatTokens(tokens: number, locale: Locale): string {
  return Math.round(tokens).toLocaleString(locale === 'zh' ? 'zh-CN' : 'en-US');
}

const BARS = '▁▂▃▄▅▆▇█';

/** One character per value, scaled to the largest; zero is the lowest bar. */
export function sparkline(values: readonly number[]): string {
  const max = Math.max(0, ...values);
  return values
    .map((v) => (max <= 0 || v <= 0 ? BARS[0] : BARS[Math.min(7, Math.ceil((v / max) * 7))]))
    .join('');
}
