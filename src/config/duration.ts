const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "24h" → ms; "90m", "30s", "500ms", "2d"; a bare number is seconds. Undefined when unreadable. */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/i.exec(text);
  if (!match) return undefined;
  const unit = (match[2] ?? 's').toLowerCase();
  return Math.round(Number(match[1]) * (UNITS[unit] ?? 1_000));
}
