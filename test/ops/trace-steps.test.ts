/**
 * The steps a traced turn waits on, each a span under the turn's, told by the core's own code as it
 * takes them: the files it reads (`read_context file`, with the outcome and size, never the bytes)
 * and the asker's answer to a plan or a tool call (`wait_for_user`, with the answer). The rest of the
 * tree (model calls, tools, searches, the thread, the delivery) is checked end to end in
 * otel-traces.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { gatherContext } from '../../src/context/gather-context.js';
import { planConfirmation, toolConfirmation } from '../../src/core/turn-confirmations.js';
import { silentLogger } from '../../src/logger.js';
import type { TurnSink } from '../../src/surface.js';
import { inTracedTurn, memoryTracer } from '../helpers/traced-turn.js';

function tracing() {
  const { tracer, spans } = memoryTracer();
  const turnSpan = () => spans().find((s) => s.name === 'invoke_agent Scout')!;
  return { tracer, spans, turnSpan };
}

describe('turn steps on spans', () => {
  it('each file the turn reads is a read_context span with its outcome and size, under the turn', async () => {
    const { tracer, spans, turnSpan } = tracing();
    const secret = 'quarterly numbers nobody may see';
    await inTracedTurn(tracer, async (_meter, scope) => {
      await gatherContext({
        source: {
          messageId: 'M1',
          attachments: [
            { id: 'F1', name: 'notes.txt', mimeType: 'text/plain' },
            { id: 'F2', name: 'huge.log' },
          ],
          download: async (file) =>
            file.id === 'F1' ? { ok: true, bytes: Buffer.from(secret) } : { ok: false, reason: 'too-large' },
        },
        readThread: false,
        budgetTokens: 2_000,
        maxImages: 4,
        maxFileBytes: 1024 * 1024,
        vision: false,
        imageLimits: { maxEdge: 2048, maxBytes: 4_000_000 },
        locale: 'en',
        emit: () => {},
        signal: new AbortController().signal,
        logger: silentLogger,
        ...(scope.hearStep ? { hearStep: scope.hearStep } : {}),
      });
    });
    const reads = spans().filter((s) => s.name === 'read_context file');
    expect(reads.map((s) => s.attributes)).toEqual([
      {
        'scout.context.kind': 'file',
        'scout.context.mime_type': 'text/plain',
        'scout.context.outcome': 'ok',
        'scout.context.bytes': secret.length,
      },
      { 'scout.context.kind': 'file', 'scout.context.outcome': 'too-large' },
    ]);
    for (const read of reads) expect(read.parentSpanContext?.spanId).toBe(turnSpan().spanContext().spanId);
    expect(JSON.stringify(spans().map((s) => s.attributes))).not.toContain('quarterly');
  });

  it("waiting for the asker's Run and Approve are wait_for_user spans that say what the asker chose", async () => {
    const { tracer, spans, turnSpan } = tracing();
    const sink: TurnSink = {
      update: () => {},
      done: async () => {},
      reply: async () => {},
      confirmPlan: async () => true,
      confirmTool: async () => false,
    };
    const turnSignal = new AbortController().signal;
    await inTracedTurn(tracer, async (_meter, scope) => {
      const plan = planConfirmation(sink, {
        conversationId: 'c1',
        turnSignal,
        awaiting: new Map(),
        timeoutMs: 1_000,
        hearStep: scope.hearStep,
      });
      const tool = toolConfirmation(sink, {
        origin: { message: 'open an issue' },
        turnSignal,
        hearStep: scope.hearStep,
      });
      expect(await plan?.({ steps: [] })).toBe(true);
      expect(await tool?.({ tool: 'github__create_issue', arguments: '{}' }, turnSignal)).toBe(false);
    });
    const planSpan = spans().find((s) => s.name === 'wait_for_user plan');
    const toolSpan = spans().find((s) => s.name === 'wait_for_user tool');
    expect(planSpan?.attributes).toEqual({ 'scout.approved': true });
    expect(toolSpan?.attributes).toEqual({
      'gen_ai.tool.name': 'github__create_issue',
      'scout.approved': false,
    });
    for (const span of [planSpan, toolSpan])
      expect(span?.parentSpanContext?.spanId).toBe(turnSpan().spanContext().spanId);
  });
});
