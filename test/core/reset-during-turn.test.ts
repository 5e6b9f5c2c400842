import { describe, expect, it } from 'vitest';
import { loadHistory } from '../../src/store/conversation-store.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { RecordingSink, startTestScout, testMessage } from '../helpers/scout-harness.js';
import { say } from '../../src/i18n/say.js';

describe('/reset while a turn is running', () => {
  it('stops the turn, waits for it, and leaves no history behind', async () => {
    const h = await startTestScout();
    try {
      // A slow answer: the reset lands while it streams.
      h.llm.enqueue(
        textReply('A long answer that is still streaming when the reset comes.', { chunkDelayMs: 150 }),
      );
      const sink = new RecordingSink();
      const turn = h.scout.handleMessage(testMessage('tell me a long story'), sink);
      while (!sink.updates.some((v) => v.answer.length > 0)) await new Promise((r) => setTimeout(r, 10));

      const reply = await h.scout.runCommand('reset', '', {
        channelId: 'test:C1',
        conversationId: 'test:C1:T1',
        userId: 'U1',
      });
      expect(say('en', reply.text)).toContain('Conversation reset');
      await turn;
      expect(sink.final?.cancelled).toBe(true);
      expect(await loadHistory(h.stores, 'test:C1:T1')).toEqual([]);
    } finally {
      await h.close();
    }
  });
});
