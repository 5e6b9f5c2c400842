/**
 * A model server that dies in the middle of an answer, after the connection had worked: the person
 * is told the answer was cut off and to try again, never the server's URL or "check the base URL"
 * (that advice is for a connection that never worked, and the URL is internal).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TurnView } from '../../src/render/view.js';
import type { IncomingMessage, TurnSink } from '../../src/surface.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { startTestScout, type TestScout } from '../helpers/scout-harness.js';
import { say } from '../../src/i18n/say.js';

let h: TestScout | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Asks one question in chat mode and returns what the surface was finally given to show. */
async function ask(scout: TestScout): Promise<{ view: TurnView | undefined; replies: string[] }> {
  let view: TurnView | undefined;
  const replies: string[] = [];
  const sink: TurnSink = {
    update() {},
    async done(final) {
      view = structuredClone(final);
    },
    async reply(text) {
      replies.push(say('en', text));
    },
  };
  const message: IncomingMessage = {
    channelId: 'test:C1',
    conversationId: `test:C1:${Math.random()}`,
    messageId: `m-${Math.random()}`,
    userId: 'U1',
    text: 'Tell me about Paris.',
  };
  await scout.scout.handleMessage(message, sink);
  return { view, replies };
}

describe('a stream cut mid-answer', () => {
  it('says the answer was cut off and to try again, without the server URL or base-URL advice', async () => {
    h = await startTestScout({ env: { DEFAULT_MODE: 'chat' } });
    // The first words arrive, then the server's socket is destroyed (no terminator, no [DONE]).
    h.llm.enqueue({
      ...textReply('Paris is the capital of France and it has many museums and bridges.'),
      dropAfter: 3,
      chunkDelayMs: 30,
    });
    const { view, replies } = await ask(h);
    const shown = `${view?.answer ?? ''}\n${view?.error ?? ''}\n${replies.join('\n')}`;
    expect(view?.error ?? replies.join('\n')).toMatch(/cut off/i);
    expect(view?.error ?? replies.join('\n')).toMatch(/try again/i);
    expect(shown).not.toContain(h.llm.origin);
    expect(shown).not.toContain('127.0.0.1');
    expect(shown).not.toMatch(/base URL|http vs https/i);
    // Only one request: an answer already shown is not asked again.
    expect(h.llm.requests).toHaveLength(1);
  });

  it('a connection that never worked still names the server and what to check', async () => {
    h = await startTestScout({ env: { DEFAULT_MODE: 'chat' } });
    // Every attempt is dropped before a byte of the answer: the connection itself is the problem.
    h.llm.fallback = { ...textReply('never'), dropAfter: 0 };
    const { view, replies } = await ask(h);
    const shown = view?.error ?? replies.join('\n');
    expect(shown).not.toMatch(/cut off/i);
    expect(shown).toMatch(/connect|connection/i);
  });
});
