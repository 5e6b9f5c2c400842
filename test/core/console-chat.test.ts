/**
 * Whole chat-mode turns through the console surface against a fake OpenAI-compatible server and a
 * fake search API over real HTTP.
 */
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleSurface, runOnce } from '../../adapters/console/console-surface.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { RecordingSink, type TestScout, startTestScout, testMessage } from '../helpers/scout-harness.js';
import { capturedOutput } from '../console/captured-output.js';
import { say } from '../../src/i18n/say.js';

/** The messages the model received in request `i`. */
function sentMessages(h: TestScout, i: number): Array<{ role: string; content: string }> {
  const body = h.llm.requests[i]?.body as { messages: Array<{ role: string; content: string }> } | undefined;
  if (!body) throw new Error(`no request ${i} reached the model`);
  return body.messages;
}

describe('chat mode through the console', () => {
  let h: TestScout;
  beforeEach(async () => {
    h = await startTestScout();
  });
  afterEach(async () => {
    await h.close();
  });

  it('streams the answer: the view grows chunk by chunk and the console prints it', async () => {
    // The pieces come further apart than the batch window (40 ms, src/llm/openai/batch-window.ts),
    // with room for a loaded machine's lag: each shows.
    h.llm.enqueue(textReply('Paris is the capital of France.', { chunkDelayMs: 120 }));
    const sink = new RecordingSink();
    await h.scout.handleMessage(testMessage('Capital of France?'), sink);
    const answers = sink.updates.map((v) => v.answer).filter(Boolean);
    expect(new Set(answers).size).toBeGreaterThan(2);
    expect(sink.final?.answer).toBe('Paris is the capital of France.');
    expect(sink.final?.footer).toMatch(/test-model|fake-model/);

    h.llm.enqueue(textReply('Berlin.'));
    const out = capturedOutput();
    expect(await runOnce(h.scout, 'Capital of Germany?', out)).toBe(0);
    expect(out.text).toContain('Berlin.');
  });

  it('with search on, cites results as links with a References section of only the cited sources', async () => {
    await h.scout.runCommand('search', 'on', { channelId: 'test:C1', userId: 'U1' });
    h.search.script('latest node release', [
      { title: 'Node 24 released', url: 'https://nodejs.org/en/blog/24', snippet: 'Node.js 24 is out.' },
      { title: 'Unrelated', url: 'https://example.org/other', snippet: 'Nothing useful.' },
      { title: 'Release notes', url: 'https://github.com/nodejs/node/releases', snippet: 'Changelog.' },
    ]);
    h.llm.enqueue(textReply('Node 24 is the latest [1], see the changelog [3] and [9].'));
    const sink = new RecordingSink();
    await h.scout.handleMessage(testMessage('latest node release'), sink);

    const prompt = sentMessages(h, 0).at(-1)?.content ?? '';
    expect(prompt).toContain('[1] Node 24 released');
    expect(prompt).toContain('URL: https://github.com/nodejs/node/releases');
    const answer = sink.final?.answer ?? '';
    expect(answer).toContain('[[1]](https://nodejs.org/en/blog/24)');
    expect(answer).toContain('[[3]](https://github.com/nodejs/node/releases)');
    expect(answer).not.toContain('[9]');
    const references = answer.slice(answer.indexOf('**References**'));
    expect(references).toContain('Node 24 released');
    expect(references).toContain('Release notes');
    expect(references).not.toContain('Unrelated');
    expect(sink.final?.steps.map((s) => s.kind)).toEqual(['search', 'search-results']);
  });

  it('an answer without search has no references and no markers', async () => {
    h.llm.enqueue(textReply('Plain answer [1].'));
    const sink = new RecordingSink();
    await h.scout.handleMessage(testMessage('hello'), sink);
    expect(sink.final?.answer).toBe('Plain answer.');
    expect(h.search.requests).toHaveLength(0);
  });

  it('shows reasoning as a Thinking step that collapses once, on the first answer chunk', async () => {
    h.llm.enqueue(
      textReply('42.', { reasoning: 'The user asks about the meaning of life. Douglas Adams says 42.' }),
    );
    const sink = new RecordingSink();
    await h.scout.handleMessage(testMessage('Meaning of life?'), sink);
    const thinking = sink.updates
      .map((v) => v.steps.find((s) => s.kind === 'thinking'))
      .filter((s) => s !== undefined);
    expect(thinking[0]?.title).toBe('Thinking…');
    expect(thinking[0]?.collapsed).toBe(false);
    // Open while reasoning streams; collapsed together with the first answer chunk (the same
    // model chunk), never re-opened.
    const firstAnswer = sink.updates.findIndex((v) => v.answer.length > 0);
    const collapseAt = sink.updates.findIndex((v) =>
      v.steps.some((s) => s.kind === 'thinking' && s.collapsed),
    );
    expect(sink.updates.slice(0, collapseAt).some((v) => v.steps[0]?.body.includes('Douglas'))).toBe(true);
    expect(firstAnswer - collapseAt).toBe(1);
    expect(
      sink.updates.slice(collapseAt).every((v) => v.steps.find((s) => s.kind === 'thinking')?.collapsed),
    ).toBe(true);
    expect(sink.final?.steps[0]).toMatchObject({
      title: 'Thought process',
      status: 'done',
      collapsed: true,
    });
    expect(sink.final?.steps[0]?.body).toContain('Douglas Adams');
  });

  it('restores the search switch after /mode agent then /mode chat', async () => {
    const ctx = { channelId: 'test:C1', userId: 'U1' };
    await h.scout.runCommand('search', 'on', ctx);
    expect(say('en', (await h.scout.runCommand('mode', 'agent', ctx)).text)).toContain('Agent');
    expect((await h.scout.getSettings('test:C1')).search).toBe(false);
    const reply = await h.scout.runCommand('search', 'on', ctx);
    expect(say('en', reply.text)).toContain('In agent mode the AI decides when to search');
    await h.scout.runCommand('mode', 'chat', ctx);
    expect(await h.scout.getSettings('test:C1')).toMatchObject({ mode: 'chat', search: true });
  });

  it('a mode switch clears history: the next request carries no earlier turns', async () => {
    h.llm.enqueue(textReply('First answer.'), textReply('Second answer.'), textReply('Third answer.'));
    await h.scout.handleMessage(testMessage('first question'), new RecordingSink());
    await h.scout.handleMessage(testMessage('second question'), new RecordingSink());
    expect(sentMessages(h, 1).map((m) => m.content)).toContain('first question');
    const sink = new RecordingSink();
    await h.scout.handleMessage(testMessage('/mode agent'), sink);
    expect(sink.replies[0]).toContain('cleared');
    await h.scout.runCommand('mode', 'chat', { channelId: 'test:C1', userId: 'U1' });
    await h.scout.handleMessage(testMessage('third question'), new RecordingSink());
    const third = sentMessages(h, 2);
    expect(third.filter((m) => m.role !== 'system').map((m) => m.content)).toEqual(['third question']);
  });

  it('two conversations keep separate histories', async () => {
    h.llm.fallback = () => textReply('ok');
    await h.scout.handleMessage(
      testMessage('about apples', { conversationId: 'test:C1:A' }),
      new RecordingSink(),
    );
    await h.scout.handleMessage(
      testMessage('about boats', { conversationId: 'test:C1:B' }),
      new RecordingSink(),
    );
    await h.scout.handleMessage(
      testMessage('more apples', { conversationId: 'test:C1:A' }),
      new RecordingSink(),
    );
    const contents = sentMessages(h, 2).map((m) => m.content);
    expect(contents).toContain('about apples');
    expect(contents).not.toContain('about boats');
  });

  it('a repeated query is served from the session cache with no second HTTP request', async () => {
    await h.scout.runCommand('search', 'on', { channelId: 'test:C1', userId: 'U1' });
    h.llm.fallback = () => textReply('answer [1]');
    await h.scout.handleMessage(testMessage('weather in Oslo'), new RecordingSink());
    const sink = new RecordingSink();
    await h.scout.handleMessage(testMessage('Weather  in oslo', { conversationId: 'test:C1:other' }), sink);
    expect(h.search.requests).toHaveLength(1);
    expect(sink.final?.steps.find((s) => s.kind === 'search-results')?.title).toContain('cached');
  });

  it('/config shows settings but never a key', async () => {
    const reply = say(
      'en',
      (await h.scout.runCommand('config', '', { channelId: 'test:C1', userId: 'U1' })).text,
    );
    expect(reply).toContain('openai/test-model');
    expect(reply).toContain('tavily');
    expect(reply).toContain('memory');
    for (const value of Object.values(h.config.env)) {
      if (typeof value === 'string' && /key|secret|sk-|tvly-/i.test(value))
        expect(reply).not.toContain(value);
    }
    expect(reply).not.toContain('sk-test-harness-key');
  });

  it('answers bad input with friendly replies: unknown command, bad argument, empty message', async () => {
    const sink = new RecordingSink();
    await h.scout.handleMessage(testMessage('/frobnicate'), sink);
    await h.scout.handleMessage(testMessage('/mode turbo'), sink);
    await h.scout.handleMessage(testMessage('   '), sink);
    await h.scout.handleMessage(testMessage('/model tool nosuch/model'), sink);
    expect(sink.replies[0]).toMatch(/Unknown command `\/frobnicate`/);
    expect(sink.replies[1]).toMatch(/Usage: `\/mode chat\|agent\|plan`/);
    expect(sink.replies[2]).toMatch(/Ask me anything — this channel is in \*Chat\* mode/);
    expect(sink.replies[3]).toMatch(/unknown provider \(use one of/);
    expect(h.llm.requests).toHaveLength(0);
  });

  it('trims a 100 KB message with a notice instead of failing', async () => {
    h.llm.enqueue(textReply('Summarised.'));
    const sink = new RecordingSink();
    await h.scout.handleMessage(testMessage('x'.repeat(100_000)), sink);
    expect(sink.final?.answer).toBe('Summarised.');
    expect(sink.final?.steps[0]?.kind).toBe('notice');
    const sent = sentMessages(h, 0).at(-1)?.content ?? '';
    expect(sent.length).toBeLessThanOrEqual(16_000);
  });

  it('answers the same message id only once', async () => {
    h.llm.fallback = () => textReply('once');
    const message = testMessage('hello twice');
    await Promise.all([
      h.scout.handleMessage(message, new RecordingSink()),
      h.scout.handleMessage({ ...message }, new RecordingSink()),
    ]);
    expect(h.llm.requests).toHaveLength(1);
  });

  it('an LLM outage ends the turn with a friendly message and the next turn works', async () => {
    h.llm.enqueue({ status: 401, body: { error: { message: 'bad key' } } });
    const sink = new RecordingSink();
    await h.scout.handleMessage(testMessage('hi'), sink);
    expect(sink.final?.error).toMatch(/rejected Scout’s credentials/);
    expect(sink.final?.done).toBe(true);
    h.llm.enqueue(textReply('Back.'));
    const next = new RecordingSink();
    await h.scout.handleMessage(testMessage('again'), next);
    expect(next.final?.answer).toBe('Back.');
  });

  it('runs an interactive session: commands and questions typed at the prompt', async () => {
    h.llm.enqueue(textReply('Hi there!'));
    const input = new PassThrough();
    const output = Object.assign(new PassThrough(), { isTTY: false });
    let printed = '';
    output.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
    });
    let exited = false;
    const surface = createConsoleSurface({
      core: h.scout,
      input,
      output,
      conversation: 'console:test',
      onExit: () => (exited = true),
    });
    await surface.start();
    input.write('/mode agent\n');
    await vitestWaitFor(() => printed.includes('Switched to'));
    input.write('/mode chat\n');
    await vitestWaitFor(() => printed.split('Switched to').length === 3);
    input.write('hello\n');
    await vitestWaitFor(() => printed.includes('Hi there!'));
    input.end();
    await vitestWaitFor(() => exited);
    await surface.stop();
  });
});

async function vitestWaitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
