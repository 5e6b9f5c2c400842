/** `current_context`: today's date and time in the configured time zone, plus channel and user names. */
import * as z from '../schema/zod.js';
import type { Tool } from './types.js';

export const CURRENT_CONTEXT_TOOL_NAME = 'current_context';

const inputSchema = z.object({});

/**
 * "Monday, 3 March 2025, 04:30 (Asia/Shanghai, GMT+08:00)" plus the ISO date, for the model. Built
 * from parts because ICU's joining words and commas differ between Node versions.
 */
export function describeNow(now: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'longOffset',
  }).formatToParts(now);
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  const monthNumber = new Intl.DateTimeFormat('en-US', { timeZone, month: '2-digit' }).format(now);
  const day = get('day');
  const isoDate = `${get('year')}-${monthNumber}-${day.padStart(2, '0')}`;
  const human = `${get('weekday')}, ${day} ${get('month')} ${get('year')}, ${get('hour')}:${get('minute')}`;
  const offset = get('timeZoneName');
  return `Current date and time: ${human} (${timeZone}${offset ? `, ${offset}` : ''})\nDate: ${isoDate}`;
}

export function createCurrentContextTool(options: {
  timeZone: string;
  now?: () => Date;
}): Tool<Record<string, never>> {
  const now = options.now ?? (() => new Date());
  return {
    name: CURRENT_CONTEXT_TOOL_NAME,
    description:
      "Get today's date and the current time (in the bot's time zone) and the names of the current channel and user.",
    inputSchema: inputSchema as unknown as z.ZodMiniType<Record<string, never>>,
    async run(_input, context) {
      const lines = [describeNow(now(), options.timeZone)];
      if (context.channelName) lines.push(`Channel: ${context.channelName}`);
      if (context.userName) lines.push(`User: ${context.userName}`);
      return { text: lines.join('\n') };
    },
  };
}
