/**
 * The terminal's plan prompt follows the turn: when the turn is stopped (Ctrl-C) or the plan waits too
 * long, the question is withdrawn and the plan is declined, so the turn ends instead of hanging on
 * a prompt nobody will answer.
 */
import { describe, expect, it } from 'vitest';
import { ConsoleSink } from '../../adapters/console/console-sink.js';
import type { PlanProposal } from '../../src/modes/plan/plan-types.js';

const PLAN: PlanProposal = {
  steps: [{ step: 1, description: 'look it up', tool: 'web_search', parameters: {} }],
};

describe('ConsoleSink.confirmPlan', () => {
  it('declines when the signal aborts while the prompt waits', async () => {
    const asked: string[] = [];
    // Like readline's question(): pending until answered, rejected when its signal aborts.
    const ask = (question: string, signal?: AbortSignal) =>
      new Promise<string>((_resolve, reject) => {
        asked.push(question);
        signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      });
    const sink = new ConsoleSink({ write: () => true, isTTY: false }, ask, 'zh');
    const controller = new AbortController();
    const choice = sink.confirmPlan(PLAN, controller.signal);
    controller.abort();
    expect(await choice).toBe(false);
    expect(asked).toEqual(['执行此计划？[Y/n] ']);
  });

  it('runs on Enter and declines on n', async () => {
    const yes = new ConsoleSink({ write: () => true }, async () => '');
    const no = new ConsoleSink({ write: () => true }, async () => 'n');
    expect(await yes.confirmPlan(PLAN, new AbortController().signal)).toBe(true);
    expect(await no.confirmPlan(PLAN, new AbortController().signal)).toBe(false);
  });
});
