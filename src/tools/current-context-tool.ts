/** `current_context`: today's date and time in the configured time zone, plus channel and user names. */
import { z } from 'zod';
import type { Tool } from './types.js';

export const CURRENT_CONTEXT_TOOL_NAME = 'current_context';

const inputSchema = z.object({});

/** "Monday, 3 March 2025 at 14:05 (Asia/Shanghai, GMT+08:00)" plus the ISO date, for the model. */
export function describeNow(now: Date, timeZone: string): string {
  const human = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(now);
  const offset =
    new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
      .formatToParts(now)
      .find((p) => p.type === 'timeZoneName')?.value ?? '';
  // en-CA formats dates as YYYY-MM-DD.
  const isoDate = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    now,
  );
  return `Current date and time: ${human} (${timeZone}${offset ? `, ${offset}` : ''})\nDate: ${isoDate}`;
}

export function createCurrentContextTool(options: { timeZone: string; now?: () => Date }): Tool<Record<string, never>> {
  const now = options.now ?? (() => new Date());
  return {
    name: CURRENT_CONTEXT_TOOL_NAME,
    description:
      "Get today's date and the current time (in the bot's time zone) and the names of the current channel and user.",
    inputSchema: inputSchema as unknown as z.ZodType<Record<string, never>>,
    async run(_input, context) {
      const lines = [describeNow(now(), options.timeZone)];
      if (context.channelName) lines.push(`Channel: ${context.channelName}`);
      if (context.userName) lines.push(`User: ${context.userName}`);
      return { text: lines.join('\n') };
    },
  };
}
