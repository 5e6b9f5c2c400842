import { describe, expect, it } from 'vitest';
import { createCurrentContextTool } from '../../src/tools/current-context-tool.js';

describe('current_context tool', () => {
  const now = () => new Date('2025-03-02T20:30:00Z');
  const signal = new AbortController().signal;

  it('gives the date and time in the configured time zone', async () => {
    const tool = createCurrentContextTool({ timeZone: 'Asia/Shanghai', now });
    const out = await tool.run({}, { sessionKey: 's', signal, channelName: '#general', userName: 'alice' });
    // 20:30 UTC on 2 March is already 3 March in Shanghai.
    expect(out.text).toBe(
      'Current date and time: Monday, 3 March 2025, 04:30 (Asia/Shanghai, GMT+08:00)\nDate: 2025-03-03\nChannel: #general\nUser: alice',
    );
  });

  it('works in UTC and without channel or user', async () => {
    const tool = createCurrentContextTool({ timeZone: 'UTC', now });
    const out = await tool.run({}, { sessionKey: 's', signal });
    expect(out.text).toContain('Sunday, 2 March 2025, 20:30 (UTC');
    expect(out.text).toContain('Date: 2025-03-02');
    expect(out.text).not.toContain('Channel');
  });
});
