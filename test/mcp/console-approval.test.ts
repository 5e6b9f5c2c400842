/**
 * The terminal asks y/n before a tool that changes something: Enter or anything but y is no, a
 * stopped turn withdraws the question, and without a prompt (`--once`) only `--yes` approves.
 */
import { describe, expect, it } from 'vitest';
import { ConsoleSink } from '../../adapters/console/console-sink.js';
import { emptyView } from '../../src/render/view.js';
import type { ToolApprovalRequest } from '../../src/tools/types.js';

const REQUEST: ToolApprovalRequest = {
  tool: 'notes__delete_note',
  server: 'notes',
  title: 'Delete a note',
  arguments: '{\n  "id": "n1"\n}',
};
const never = new AbortController().signal;

describe('ConsoleSink.confirmTool', () => {
  it('shows the tool and its arguments and approves only on y', async () => {
    const written: string[] = [];
    const asked: string[] = [];
    const sink = (answer: string) =>
      new ConsoleSink({ write: (s) => written.push(s) }, async (question) => {
        asked.push(question);
        return answer;
      });
    expect(await sink('y').confirmTool(REQUEST, never)).toBe(true);
    expect(await sink('yes').confirmTool(REQUEST, never)).toBe(true);
    expect(await sink('').confirmTool(REQUEST, never)).toBe(false);
    expect(await sink('n').confirmTool(REQUEST, never)).toBe(false);
    expect(written.join('')).toContain('notes__delete_note (Delete a note)');
    expect(written.join('')).toContain('"id": "n1"');
    expect(asked[0]).toBe('Allow this tool call? [y/N] ');
  });

  it('prints the outcome under the answer typed at the prompt (a pipe: when the turn ends)', async () => {
    for (const [answer, outcome] of [
      ['y', '✅ Approved: running it.'],
      ['', '🚫 Denied: it was not run.'],
    ] as const) {
      let written = '';
      const sink = new ConsoleSink({ write: (s) => (written += s) }, async (question) => {
        written += `${question}${answer}\n`;
        return answer;
      });
      await sink.confirmTool(REQUEST, never);
      await sink.done({ ...emptyView(), answer: 'Done.', answerFinal: true, done: true });
      const prompt = written.indexOf('Allow this tool call? [y/N]');
      expect(written.indexOf('"id": "n1"')).toBeLessThan(prompt);
      expect(written.indexOf(outcome)).toBeGreaterThan(prompt);
      expect(written.split('notes__delete_note')).toHaveLength(2);
    }
  });

  it('declines when the turn stops while the prompt waits', async () => {
    const ask = (_question: string, signal?: AbortSignal) =>
      new Promise<string>((_resolve, reject) => {
        signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      });
    const sink = new ConsoleSink({ write: () => true }, ask);
    const controller = new AbortController();
    const choice = sink.confirmTool(REQUEST, controller.signal);
    controller.abort();
    expect(await choice).toBe(false);
  });

  it('without a prompt approves only with --yes', async () => {
    expect(await new ConsoleSink({ write: () => true }).confirmTool(REQUEST, never)).toBe(false);
    expect(
      await new ConsoleSink({ write: () => true }, undefined, 'en', { approveTools: true }).confirmTool(
        REQUEST,
        never,
      ),
    ).toBe(true);
  });
});
