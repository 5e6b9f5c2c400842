import { describe, expect, it } from 'vitest';
import { tablesAsCode } from '../../src/render/markdown-tables.js';

describe('tablesAsCode (platforms that show table syntax raw)', () => {
  it('wraps a table in a code block and leaves the rest, and tables inside code, alone', () => {
    const table = '| Name | Stars |\n|------|------:|\n| tokio | 25k |\n| async-std | 4k |';
    const text = `Compare:\n\n${table}\n\nDone.\n\n\`\`\`md\n| a | b |\n|---|---|\n\`\`\``;
    expect(tablesAsCode(text)).toBe(
      `Compare:\n\n\`\`\`\n${table}\n\`\`\`\n\nDone.\n\n\`\`\`md\n| a | b |\n|---|---|\n\`\`\``,
    );
  });

  it('keeps text with pipes that is not a table', () => {
    const text = 'a | b\n| not a table |\nplain';
    expect(tablesAsCode(text)).toBe(text);
  });
});
