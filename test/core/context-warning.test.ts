import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { textReply } from '../helpers/fake-openai-server.js';
import { RecordingSink, startTestScout, testMessage } from '../helpers/scout-harness.js';

describe('context window', () => {
  it('logs a warning when a prompt passes 80 % of the window, and not below it', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const h = await startTestScout({
      env: { LLM_CONTEXT_WINDOW: '1000' },
      logger: pino({ level: 'warn' }, destination),
    });
    try {
      h.llm.fallback = () => textReply('ok');
      await h.scout.handleMessage(testMessage('short question'), new RecordingSink());
      expect(lines.filter((l) => l.includes('near the model context window'))).toHaveLength(0);
      // ~900 tokens: "word " is one o200k token.
      await h.scout.handleMessage(
        testMessage('word '.repeat(900), { conversationId: 'test:C1:long' }),
        new RecordingSink(),
      );
      const warning = lines.find((l) => l.includes('near the model context window'));
      expect(warning).toBeDefined();
      expect(JSON.parse(warning ?? '{}')).toMatchObject({ contextWindow: 1000 });
    } finally {
      await h.close();
    }
  });
});
