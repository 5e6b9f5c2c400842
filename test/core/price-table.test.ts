import { describe, expect, it } from 'vitest';
import { textReply } from '../helpers/fake-openai-server.js';
import { RecordingSink, startTestScout, testMessage } from '../helpers/scout-harness.js';

describe('PRICE_TABLE', () => {
  it('prices the turn with the configured table and shows the cost in the footer', async () => {
    const h = await startTestScout({
      env: { PRICE_TABLE: JSON.stringify({ 'openai/test-model': { input: 1_000, output: 2_000 } }) },
    });
    try {
      h.llm.enqueue(textReply('Priced.', { usage: { inputTokens: 100, outputTokens: 50 } }));
      const sink = new RecordingSink();
      await h.scout.handleMessage(testMessage('how much?'), sink);
      // 100 × $1000/1M + 50 × $2000/1M = $0.2
      expect(sink.final?.stats?.costUsd).toBeCloseTo(0.2, 6);
      expect(sink.final?.footer).toContain('$0.2');
    } finally {
      await h.close();
    }
  });

  it('leaves the cost out when the model has no price', async () => {
    const h = await startTestScout();
    try {
      h.llm.enqueue(textReply('Unpriced.'));
      const sink = new RecordingSink();
      await h.scout.handleMessage(testMessage('how much?'), sink);
      expect(sink.final?.stats?.costUsd).toBeUndefined();
      expect(sink.final?.footer).not.toContain('$');
    } finally {
      await h.close();
    }
  });
});
