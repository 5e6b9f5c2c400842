/**
 * A mention with only files attached asks about the files: the model is sent the asker's question
 * "Please look at the attached files." in the asker's language, not the short help.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MessageContextSource } from '../../src/context/types.js';
import type { Locale } from '../../src/surface.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { RecordingSink, type TestScout, startTestScout, testMessage } from '../helpers/scout-harness.js';

let h: TestScout | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function withFile(messageId: string): MessageContextSource {
  return {
    messageId,
    attachments: [{ id: 'F1', name: 'notes.txt', mimeType: 'text/plain', size: 12 }],
    download: async () => ({
      ok: true,
      bytes: new TextEncoder().encode('Kettle: 3 L'),
      mimeType: 'text/plain',
    }),
  };
}

async function lastUserContent(locale: Locale): Promise<string> {
  h = await startTestScout();
  h.llm.enqueue(textReply('It is a note about a kettle.'));
  const sink = new RecordingSink(locale);
  await h.scout.handleMessage(
    testMessage('', { locale, messageId: `m-${locale}`, context: withFile(`m-${locale}`) }),
    sink,
  );
  expect(sink.replies).toEqual([]);
  expect(sink.final?.answer).toContain('kettle');
  const messages = (h.llm.requests[0]!.body as { messages: Array<{ role: string; content: unknown }> })
    .messages;
  const user = messages.filter((m) => m.role === 'user').at(-1);
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content);
}

describe('a mention with only files attached', () => {
  it('asks the model about the files, in English', async () => {
    expect(await lastUserContent('en')).toBe('Please look at the attached files.');
  });

  it('asks the model about the files, in Chinese', async () => {
    expect(await lastUserContent('zh')).toBe('请看一下附件。');
  });
});
