/**
 * Hand-written streams for the outcomes no recording shows, each through a whole Scout turn: what
 * the person sees, how many requests reached the model, and what the model was sent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TurnView } from '../../src/render/view.js';
import { openAIErrorBody, textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { RecordingSink, startTestScout, type TestScout, testMessage } from '../helpers/scout-harness.js';

let h: TestScout | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function turn(text: string): Promise<TurnView> {
  const sink = new RecordingSink();
  await h!.scout.handleMessage(testMessage(text), sink);
  return sink.final!;
}

const notices = (view: TurnView) => view.steps.filter((s) => s.kind === 'warning').map((s) => s.title);

describe('chat turns end truthfully', () => {
  it('an answer cut at max_tokens keeps the partial text and says how to raise the limit', async () => {
    h = await startTestScout({ noSearch: true, env: { DEFAULT_MAX_TOKENS: '2000' } });
    h.llm.enqueue(textReply('The first half of a long ans', { finishReason: 'length' }));
    const view = await turn('explain everything');
    expect(view.answer).toContain('The first half of a long ans');
    expect(view.error).toBeUndefined();
    expect(notices(view).join('\n')).toMatch(
      /cut at max_tokens=2000 — raise it with `\/model tool openai\/test-model max_tokens=4000`/,
    );
  });

  it('without max_tokens configured none is sent, and a cut answer names the server’s limit', async () => {
    h = await startTestScout({ noSearch: true });
    h.llm.enqueue(textReply('Half an answ', { finishReason: 'length' }));
    const view = await turn('explain everything');
    const body = h.llm.requests[0]!.body as Record<string, unknown>;
    expect(body).not.toHaveProperty('max_tokens');
    expect(body).not.toHaveProperty('max_completion_tokens');
    expect(view.answer).toContain('Half an answ');
    expect(notices(view).join('\n')).toMatch(/cut at the model server’s token limit/);
  });

  it('an answer stopped by the content filter keeps the text and says the provider stopped it', async () => {
    h = await startTestScout({ noSearch: true });
    h.llm.enqueue(textReply('Here is how to', { finishReason: 'content_filter' }));
    const view = await turn('something borderline');
    expect(view.answer).toContain('Here is how to');
    expect(notices(view).join('\n')).toMatch(/safety system stopped the answer/);
  });

  it('tool-call markup the model wrote as text is not shown, even split across chunks', async () => {
    h = await startTestScout({ noSearch: true });
    h.llm.enqueue(
      textReply(
        'Let me look that up. <tool_call>\n{"name": "web_search", "arguments": {"query": "a < b"}}\n</tool_call> Done.',
      ),
    );
    const sink = new RecordingSink();
    await h.scout.handleMessage(testMessage('look it up'), sink);
    expect(sink.final!.answer).toBe('Let me look that up.  Done.');
    // Every streamed state too: the raw tag never reached the screen.
    for (const update of sink.updates) expect(update.answer).not.toMatch(/tool_call|web_search|<tool/);
  });

  it('an answer that ends normally has no such notice', async () => {
    h = await startTestScout({ noSearch: true });
    h.llm.enqueue(textReply('All done.'));
    const view = await turn('hi');
    expect(notices(view)).toEqual([]);
  });

  it('a 500 that only the request can cause ("Failed to parse … JSON") is sent once and shown as the provider said it', async () => {
    h = await startTestScout({ noSearch: true });
    h.llm.fallback = {
      status: 500,
      body: openAIErrorBody(
        'Failed to parse tool call arguments as JSON: [json.exception.parse_error.101]',
        'server_error',
      ),
    };
    const view = await turn('hi');
    expect(h.llm.requests).toHaveLength(1);
    expect(view.error).toMatch(/Failed to parse tool call arguments as JSON/);
    expect(view.error).not.toMatch(/overloaded/i);
  });

  it('a prompt too long for the context window says so, with the provider’s message', async () => {
    h = await startTestScout({ noSearch: true });
    h.llm.fallback = {
      status: 400,
      body: {
        error: {
          message:
            "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
        },
      },
    };
    const view = await turn('hi');
    expect(h.llm.requests).toHaveLength(1);
    expect(view.error).toMatch(/too long for the model’s context window/);
    expect(view.error).toMatch(/maximum context length is 8192/);
    expect(view.error).not.toMatch(/chat mode/);
  });

  it('a 503 is still retried and then called overloaded', async () => {
    h = await startTestScout({ noSearch: true });
    h.llm.fallback = { status: 503, body: openAIErrorBody('Service Unavailable', 'server_error') };
    const view = await turn('hi');
    expect(h.llm.requests).toHaveLength(4);
    expect(view.error).toMatch(/overloaded/i);
  });
});

describe('agent turns with a cut tool call', () => {
  it('a tool call cut mid-arguments is a failed step; the next request carries valid JSON and the turn answers', async () => {
    h = await startTestScout({ env: { DEFAULT_MODE: 'agent' } });
    h.llm.enqueue(
      toolCallReply([{ name: 'web_search', arguments: '{"query": "weather in Par' }], {
        finishReason: 'length',
      }),
    );
    h.llm.fallback = textReply('Paris is mild today.');
    const view = await turn('weather in Paris?');
    expect(view.error).toBeUndefined();
    expect(view.answer).toContain('Paris is mild today.');
    expect(view.steps.some((s) => s.status === 'failed')).toBe(true);
    const second = h.llm.requests[1]!.body as {
      messages: Array<{
        role: string;
        content: string;
        tool_calls?: Array<{ function: { arguments: string } }>;
      }>;
    };
    const call = second.messages.find((m) => m.tool_calls)!.tool_calls![0]!;
    expect(JSON.parse(call.function.arguments)).toEqual({});
    const toolResult = second.messages.find((m) => m.role === 'tool')!;
    expect(toolResult.content).toMatch(/not valid JSON/);
  });
});
