/**
 * The terminal's plan prompt follows the turn: when the turn is stopped (Ctrl-C) or the plan waits too
 * long, the question is withdrawn and the plan is declined, so the turn ends instead of hanging on
 * a prompt nobody will answer.
 */
import { describe, expect, it } from 'vitest';
import { ConsoleSink } from '../../adapters/console/console-sink.js';
import type { PlanProposal } from '../../src/modes/plan/plan-types.js';
import { emptyView, type TurnView } from '../../src/render/view.js';

const PLAN: PlanProposal = {
  steps: [{ step: 1, description: 'look it up', tool: 'web_search', parameters: {} }],
};

describe('ConsoleSink.confirmPlan', () => {
  it('declines when the signal aborts while the prompt waits', async () => {
    const asked: string[] = [];
    let questionShown!: () => void;
    const waiting = new Promise<void>((resolve) => {
      questionShown = resolve;
    });
    // Like readline's question(): pending until answered, rejected when its signal aborts.
    const ask = (question: string, signal?: AbortSignal) =>
      new Promise<string>((_resolve, reject) => {
        asked.push(question);
        signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        questionShown();
      });
    const sink = new ConsoleSink({ write: () => true, isTTY: false }, ask, 'zh');
    const controller = new AbortController();
    const choice = sink.confirmPlan(PLAN, controller.signal);
    // Ctrl-C (or the plan's timeout) while the question waits at the prompt.
    await waiting;
    controller.abort();
    expect(await choice).toBe(false);
    expect(asked).toEqual(['执行此计划？[Y/n] ']);
  });

  it('does not ask at all when the turn was already stopped', async () => {
    const asked: string[] = [];
    const sink = new ConsoleSink({ write: () => true }, async (question) => {
      asked.push(question);
      return 'y';
    });
    const controller = new AbortController();
    controller.abort();
    expect(await sink.confirmPlan(PLAN, controller.signal)).toBe(false);
    expect(asked).toEqual([]);
  });

  it('runs on Enter and declines on n', async () => {
    const yes = new ConsoleSink({ write: () => true }, async () => '');
    const no = new ConsoleSink({ write: () => true }, async () => 'n');
    expect(await yes.confirmPlan(PLAN, new AbortController().signal)).toBe(true);
    expect(await no.confirmPlan(PLAN, new AbortController().signal)).toBe(false);
  });
});

describe('ConsoleSink plan display', () => {
  const planView = (): TurnView => ({
    ...emptyView(),
    steps: [
      { id: 'plan', kind: 'plan', title: '📋 Plan', body: '1. look it up', status: 'info', collapsed: false },
    ],
  });

  for (const isTTY of [false, true]) {
    it(`shows the plan once with the question last (${isTTY ? 'terminal' : 'piped'})`, async () => {
      let printed = '';
      let atQuestion = '';
      const sink = new ConsoleSink({ write: (s: string) => (printed += s), isTTY }, async (question) => {
        atQuestion = printed;
        printed += `${question}y\n`;
        return 'y';
      });
      sink.update(planView());
      expect(await sink.confirmPlan(PLAN, new AbortController().signal)).toBe(true);
      expect(
        atQuestion
          .replace(/\x1b\[[0-9;]*m/g, '')
          .trimEnd()
          .endsWith('1. look it up'),
      ).toBe(true);
      const final = planView();
      final.steps.push({
        id: 's1',
        kind: 'tool',
        title: '✅ look it up',
        body: '',
        status: 'done',
        collapsed: true,
      });
      await sink.done({ ...final, answer: 'Done.', answerFinal: true, done: true });
      expect(printed.split('📋 Plan')).toHaveLength(2);
      expect(printed).toContain('✅ look it up');
      if (!isTTY) expect(printed).not.toContain('\x1b');
    });
  }
});
