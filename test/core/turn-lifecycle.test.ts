/**
 * The turn runner's lifecycle with modes under the test's control: shutdown with turns queued
 * behind a conversation lock, ALLOWED_CHANNELS for commands, admin-only channel-wide resets and
 * what a person sees when a conversation stays busy.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Config, loadConfig } from '../../src/config/env.js';
import { Scout } from '../../src/core/scout.js';
import { toUserMessage } from '../../src/i18n/user-message.js';
import type { LlmClient } from '../../src/llm/types.js';
import { silentLogger } from '../../src/logger.js';
import type { PlanProposal } from '../../src/modes/plan/plan-types.js';
import type { ModeRunner } from '../../src/modes/types.js';
import { createPromptLibrary } from '../../src/prompts/prompt-library.js';
import { createSearchService } from '../../src/search/search-service.js';
import { loadHistory } from '../../src/store/conversation-store.js';
import { createStores } from '../../src/store/create-stores.js';
import { LockTimeoutError } from '../../src/store/lock-service.js';
import type { Stores } from '../../src/store/types.js';
import type { TurnView } from '../../src/render/view.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { RecordingSink, testMessage } from '../helpers/scout-harness.js';
import { say } from '../../src/i18n/say.js';

const BASE_ENV = {
  OPENAI_API_KEY: 'sk-test-lifecycle',
  AGENT_FUNCTION_CALL_MODEL: 'openai/test-model',
  SEARCH_PROVIDER: 'none',
  STORE_URL: 'memory://',
  LOG_LEVEL: 'silent',
};

let stores: Stores | undefined;
afterEach(async () => {
  await stores?.close();
  stores = undefined;
});

async function scoutWith(
  mode: ModeRunner,
  env: Record<string, string> = {},
  planConfirmMs?: number,
): Promise<Scout> {
  const config: Config = loadConfig({ ...BASE_ENV, ...env });
  stores = await createStores({
    url: 'memory://',
    sessionTtlMs: config.env.SESSION_TTL,
    logger: silentLogger,
  });
  return new Scout({
    config,
    logger: silentLogger,
    stores,
    search: createSearchService(config, stores, silentLogger),
    tools: createToolRegistry([], { allow: config.env.AGENT_TOOLS, logger: silentLogger }),
    prompts: createPromptLibrary(),
    // The modes here never call a model: a stand-in with the model's label is enough.
    llm: (model) => ({ label: model.model, config: model }) as unknown as LlmClient,
    modes: { chat: mode, agent: mode, plan: mode },
    ...(planConfirmMs ? { planConfirmMs } : {}),
  });
}

/** A mode that runs until its turn is cancelled. */
function blockingMode(calls: { count: number }): ModeRunner {
  return (ctx) => {
    calls.count++;
    return new Promise((_resolve, reject) => {
      if (ctx.signal.aborted) reject(ctx.signal.reason);
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
    });
  };
}

/** Proposes a plan for "plan please" (answering whether it ran); answers anything else at once. */
const planningMode: ModeRunner = async (ctx) => {
  if (ctx.message.text !== 'plan please') {
    ctx.emit({ type: 'text-delta', text: `answered: ${ctx.message.text}` });
    return { answer: `answered: ${ctx.message.text}` };
  }
  const plan: PlanProposal = {
    steps: [{ step: 1, description: 'look', tool: 'web_search', parameters: {} }],
  };
  const run = await ctx.confirmPlan?.(plan);
  ctx.emit({ type: 'text-delta', text: run ? 'plan ran' : 'plan declined' });
  return { answer: run ? 'plan ran' : '' };
};

/** A sink whose plan nobody clicks: it resolves only when the core's signal says to give up. */
class IgnoredPlanSink extends RecordingSink {
  asked = 0;
  confirmPlan(_plan: PlanProposal, signal: AbortSignal): Promise<boolean> {
    this.asked++;
    return new Promise((resolve) => {
      if (signal.aborted) resolve(false);
      signal.addEventListener('abort', () => resolve(false), { once: true });
    });
  }
}

describe('turn lifecycle', () => {
  it('a new question in the conversation declines a plan nobody answered instead of queueing behind it', async () => {
    const scout = await scoutWith(planningMode);
    const planSink = new IgnoredPlanSink();
    const planTurn = scout.handleMessage(
      testMessage('plan please', { conversationId: 'test:C1:P' }),
      planSink,
    );
    await waitUntil(() => planSink.asked === 1);
    const next = new RecordingSink();
    await scout.handleMessage(testMessage('what about now?', { conversationId: 'test:C1:P' }), next);
    await planTurn;
    expect(planSink.final?.answer).toBe('plan declined');
    expect(next.final?.answer).toBe('answered: what about now?');
  });

  it('a plan nobody answers is declined after the confirmation timeout, freeing the conversation', async () => {
    const scout = await scoutWith(planningMode, {}, 50);
    const planSink = new IgnoredPlanSink();
    await scout.handleMessage(testMessage('plan please', { conversationId: 'test:C1:T' }), planSink);
    expect(planSink.final?.answer).toBe('plan declined');
    expect(planSink.final?.done).toBe(true);
  });

  it('shutdown past its grace cancels turns queued behind the conversation lock, not only the running one', async () => {
    const calls = { count: 0 };
    const scout = await scoutWith(blockingMode(calls));
    const first = new RecordingSink();
    const second = new RecordingSink();
    const running = scout.handleMessage(testMessage('first', { conversationId: 'test:C1:Q' }), first);
    const queued = scout.handleMessage(testMessage('second', { conversationId: 'test:C1:Q' }), second);
    await waitUntil(() => calls.count === 1);

    await scout.shutdown(20);
    await Promise.all([running, queued]);
    // The queued message never started a turn (no model call while the store is closing)…
    expect(calls.count).toBe(1);
    expect(first.final?.cancelled).toBe(true);
    // …and its author is told it was stopped rather than left without a word.
    expect(second.replies.join('\n') + (second.final?.error ?? '')).toMatch(/Stopped/);
  });

  it('saves one turn to history exactly once, and nothing for a cancelled turn without an answer', async () => {
    let answer = 'The answer.';
    const scout = await scoutWith(async (ctx) => {
      ctx.emit({ type: 'text-delta', text: answer });
      return { answer };
    });
    await scout.handleMessage(
      testMessage('question one', { conversationId: 'test:C1:H' }),
      new RecordingSink(),
    );
    answer = '';
    await scout.handleMessage(
      testMessage('question two', { conversationId: 'test:C1:H' }),
      new RecordingSink(),
    );
    const history = await loadHistory(scout.stores, 'test:C1:H');
    expect(history.map((m) => m.content)).toEqual(['question one', 'The answer.']);
  });

  it('the next message of a conversation starts only after the previous answer finished rendering', async () => {
    const scout = await scoutWith(async (ctx) => {
      ctx.emit({ type: 'text-delta', text: `answer to ${ctx.message.text}` });
      return { answer: `answer to ${ctx.message.text}` };
    });
    const order: string[] = [];
    class SlowFinalSink extends RecordingSink {
      constructor(private readonly name: string) {
        super();
      }
      override update(view: TurnView): void {
        if (this.updates.length === 0) order.push(`${this.name} first update`);
        super.update(view);
      }
      override async done(view: TurnView): Promise<void> {
        // The last overflow messages of a long answer take a while to post.
        await new Promise((resolve) => setTimeout(resolve, 40));
        order.push(`${this.name} rendered`);
        await super.done(view);
      }
    }
    await Promise.all([
      scout.handleMessage(testMessage('one', { conversationId: 'test:C1:O' }), new SlowFinalSink('one')),
      scout.handleMessage(testMessage('two', { conversationId: 'test:C1:O' }), new SlowFinalSink('two')),
    ]);
    expect(order).toEqual(['one first update', 'one rendered', 'two first update', 'two rendered']);
  });

  it('events a mode emits after its turn ended change and redraw nothing', async () => {
    let late: Promise<void> | undefined;
    const scout = await scoutWith(async (ctx) => {
      ctx.emit({ type: 'text-delta', text: 'final answer' });
      // Like a tool call still winding down after Stop: it reports once the turn is over.
      late = new Promise((resolve) =>
        setTimeout(() => {
          ctx.emit({ type: 'step-start', id: 'late', kind: 'tool', title: 'late tool' });
          ctx.emit({ type: 'text-delta', text: ' and more' });
          resolve();
        }, 20),
      );
      return { answer: 'final answer' };
    });
    const sink = new RecordingSink();
    await scout.handleMessage(testMessage('question'), sink);
    const updates = sink.updates.length;
    await late;
    expect(sink.updates).toHaveLength(updates);
    expect(sink.final?.answer).toBe('final answer');
    expect(sink.updates.at(-1)?.steps).toEqual([]);
  });

  it('ALLOWED_CHANNELS also applies to slash commands and settings panels', async () => {
    const scout = await scoutWith(async () => ({ answer: 'x' }), { ALLOWED_CHANNELS: 'C1' });
    const refused = await scout.runCommand('mode', 'agent', { channelId: 'slack:T1:C999', userId: 'U1' });
    expect(refused.changed).toBe(false);
    expect(say('en', refused.text)).toMatch(/not enabled in this channel/);
    expect((await scout.getSettings('slack:T1:C999')).mode).toBe('chat');
    const zh = await scout.runCommand('config', '', {
      channelId: 'slack:T1:C999',
      userId: 'U1',
      locale: 'zh',
    });
    expect(say('zh', zh.text)).toContain('未在此频道启用');

    const allowed = await scout.runCommand('mode', 'agent', { channelId: 'slack:T1:C1', userId: 'U1' });
    expect(allowed.changed).toBe(true);
    expect((await scout.getSettings('slack:T1:C1')).mode).toBe('agent');
  });

  it('with ADMIN_USERS, only admins reset a whole channel; anyone resets their own conversation', async () => {
    const scout = await scoutWith(async () => ({ answer: 'kept' }), { ADMIN_USERS: 'UADMIN' });
    await scout.handleMessage(
      testMessage('hello', { channelId: 'test:C1', conversationId: 'test:C1:other-user' }),
      new RecordingSink(),
    );
    const channelWide = await scout.runCommand('reset', '', { channelId: 'test:C1', userId: 'U2' });
    expect(say('en', channelWide.text)).toMatch(/Only Scout administrators/);
    expect(await loadHistory(scout.stores, 'test:C1:other-user')).toHaveLength(2);

    const own = await scout.runCommand('reset', '', {
      channelId: 'test:C1',
      conversationId: 'test:C1:mine',
      userId: 'U2',
    });
    expect(own.changed).toBe(true);
    const admin = await scout.runCommand('reset', '', { channelId: 'test:C1', userId: 'UADMIN' });
    expect(admin.changed).toBe(true);
    expect(await loadHistory(scout.stores, 'test:C1:other-user')).toHaveLength(0);
  });

  it('a message that waited out the lock hears the conversation is busy, not that storage failed', () => {
    expect(toUserMessage(new LockTimeoutError(600_000), 'en')).toMatch(
      /still working on the previous message/,
    );
    expect(toUserMessage(new LockTimeoutError(600_000), 'zh')).toContain('上一条消息');
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
