/** The retry policy, seen from the server: how many requests arrive, and after how long. */
import { describe, expect, it } from 'vitest';
import { LlmError } from '../../src/errors.js';
import { abortableSleep } from '../../src/llm/retry.js';
import {
  anthropicErrorBody,
  anthropicTextReply,
  startFakeAnthropic,
} from '../helpers/fake-anthropic-server.js';
import { openAIErrorBody, startFakeOpenAI, textReply } from '../helpers/fake-openai-server.js';
import { clientFor, collectParts, failure, TEST_KEY, useFakeServer } from './client-helpers.js';

const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };

describe('retry policy (openai SDK)', () => {
  const fake = useFakeServer(startFakeOpenAI);

  it('waits the retry-after-ms hint of a 429, then succeeds', async () => {
    fake.enqueue(
      { status: 429, body: openAIErrorBody('slow down'), headers: { 'retry-after-ms': '150' } },
      textReply('ok'),
    );
    const client = clientFor('openai', 'gpt-4.1-mini', fake.baseUrl, { retryBaseMs: 1 });
    const response = await client.complete(ask);
    expect(response.text).toBe('ok');
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]!.at - fake.requests[0]!.at).toBeGreaterThanOrEqual(140);
  });

  it('honours retry-after in seconds and as an HTTP date, and Gemini RetryInfo in the body', async () => {
    const delays: number[] = [];
    const sleep = async (ms: number) => {
      delays.push(ms);
    };
    const date = new Date(Date.now() + 5_000).toUTCString();
    fake.enqueue(
      { status: 429, body: openAIErrorBody('rate'), headers: { 'retry-after': '2' } },
      { status: 429, body: openAIErrorBody('rate'), headers: { 'retry-after': date } },
      // Gemini's OpenAI endpoint answers a JSON array the SDK cannot read; the hint is still found.
      {
        status: 429,
        body: [
          {
            error: {
              code: 429,
              status: 'RESOURCE_EXHAUSTED',
              details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' }],
            },
          },
        ],
      },
      textReply('done'),
    );
    const client = clientFor('gemini', 'gemini-2.5-flash', fake.baseUrl, { sleep });
    expect((await client.complete(ask)).text).toBe('done');
    expect(delays[0]).toBe(2000);
    expect(delays[1]).toBeGreaterThan(3_000);
    expect(delays[1]).toBeLessThanOrEqual(5_000);
    expect(delays[2]).toBe(7000);
  });

  it('retries three 5xx and succeeds on the fourth request', async () => {
    fake.enqueue(
      { status: 500, body: openAIErrorBody('boom', 'server_error') },
      { status: 502, body: 'bad gateway' },
      { status: 503, body: openAIErrorBody('unavailable') },
      textReply('finally'),
    );
    const client = clientFor('openai', 'gpt-4.1-mini', fake.baseUrl);
    expect((await client.complete(ask)).text).toBe('finally');
    expect(fake.requests).toHaveLength(4);
  });

  it('gives up after four 5xx with a clear error', async () => {
    fake.fallback = { status: 500, body: openAIErrorBody('internal failure', 'server_error') };
    const client = clientFor('openai', 'gpt-4.1-mini', fake.baseUrl);
    const err = await failure(client.complete(ask));
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).code).toBe('server');
    expect((err as LlmError).details).toMatchObject({ status: 500, retries: 3, provider: 'openai' });
    expect((err as LlmError).message).toMatch(/internal failure.*after 3 retries/);
    expect(fake.requests).toHaveLength(4);
  });

  it('fails at once on 401 with an auth error that names the variable, never the key', async () => {
    fake.enqueue({
      status: 401,
      body: openAIErrorBody(
        `Incorrect API key provided: ${TEST_KEY}`,
        'invalid_request_error',
        'invalid_api_key',
      ),
    });
    const client = clientFor('openai', 'gpt-4.1-mini', fake.baseUrl);
    const err = (await failure(client.complete(ask))) as LlmError;
    expect(err.code).toBe('auth');
    expect(err.message).toContain('OPENAI_API_KEY');
    expect(err.message).not.toContain(TEST_KEY);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
  });

  it('fails at once on 403 and on other 4xx', async () => {
    fake.enqueue(
      { status: 403, body: openAIErrorBody('forbidden') },
      { status: 422, body: openAIErrorBody('bad schema') },
    );
    const client = clientFor('openai', 'gpt-4.1-mini', fake.baseUrl);
    expect(((await failure(client.complete(ask))) as LlmError).code).toBe('auth');
    const err = (await failure(client.complete(ask))) as LlmError;
    expect(err.code).toBe('bad_request');
    expect(err.message).toContain('bad schema');
    expect(fake.requests).toHaveLength(2);
  });

  it('never retries 402 insufficient balance', async () => {
    fake.fallback = { status: 402, body: openAIErrorBody('Insufficient Balance', 'unknown_error') };
    const client = clientFor('deepseek', 'deepseek-chat', fake.baseUrl);
    const err = (await failure(client.complete(ask))) as LlmError;
    expect(err.code).toBe('insufficient_balance');
    expect(fake.requests).toHaveLength(1);
  });

  it('ends in a timeout when the server never answers', async () => {
    fake.enqueue({ hang: true });
    const client = clientFor('openai', 'gpt-4.1-mini', fake.baseUrl, { timeoutMs: 200 });
    const err = (await failure(client.complete(ask))) as LlmError;
    expect(err.code).toBe('timeout');
    // The call's own limit ended it (a server that never answers ends nothing else), not a default.
    expect(err.message).toContain('no response within 200 ms');
    expect(fake.requests).toHaveLength(1);
  });

  it('times out a stream that stalls between chunks', async () => {
    fake.enqueue({ ...textReply('slow answer here'), chunkDelayMs: 400 });
    const client = clientFor('openai', 'gpt-4.1-mini', fake.baseUrl, { timeoutMs: 150 });
    const err = (await failure(client.complete(ask))) as LlmError;
    expect(err.code).toBe('timeout');
    expect(fake.requests).toHaveLength(1);
  });

  it('keeps a stream whose chunks come steadily, each within the idle limit, past the limit in all', async () => {
    // Eight chunks 100 ms apart: 800 ms in all, never 250 ms without one.
    fake.enqueue({
      ...textReply('one two three four five six seven eight', { pieces: 8 }),
      chunkDelayMs: 100,
    });
    const client = clientFor('openai', 'gpt-4.1-mini', fake.baseUrl, { timeoutMs: 250 });
    const response = await client.complete(ask);
    expect(response.text).toBe('one two three four five six seven eight');
    expect(fake.requests).toHaveLength(1);
  });

  it('bounds the whole stream duration separately', async () => {
    fake.enqueue({ ...textReply('a long long answer that keeps coming'), chunkDelayMs: 60 });
    const client = clientFor('openai', 'gpt-4.1-mini', fake.baseUrl, { timeoutMs: 1_000, maxStreamMs: 150 });
    const err = (await failure(client.complete(ask))) as LlmError;
    expect(err.code).toBe('timeout');
    expect(err.message).toContain('stream ran past');
  });

  it('does not retry once text has streamed: a mid-stream failure is final after one request', async () => {
    // The delay lets the first chunks reach the client before the socket dies.
    fake.enqueue({ ...textReply('partial answer that breaks'), dropAfter: 3, chunkDelayMs: 30 });
    fake.fallback = textReply('should never be requested');
    const client = clientFor('openai', 'gpt-4.1-mini', fake.baseUrl);
    const seen: string[] = [];
    const err = await failure(
      (async () => {
        for await (const part of client.stream(ask)) if (part.type === 'text') seen.push(part.text);
      })(),
    );
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).code).toBe('network');
    expect(seen.join('')).not.toBe('');
    expect(fake.requests).toHaveLength(1);
  });

  it('retries a connection dropped before any output', async () => {
    fake.enqueue({ ...textReply('first'), dropAfter: 0 }, textReply('second'));
    const client = clientFor('openai', 'gpt-4.1-mini', fake.baseUrl);
    expect((await client.complete(ask)).text).toBe('second');
    expect(fake.requests).toHaveLength(2);
  });

  it('turns the caller abort into cancelled, also while waiting to retry', async () => {
    fake.enqueue({ hang: true });
    const client = clientFor('openai', 'gpt-4.1-mini', fake.baseUrl);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect(((await failure(client.complete({ ...ask, signal: controller.signal }))) as LlmError).code).toBe(
      'cancelled',
    );

    // Stop while the client waits out a 30 s retry-after: the wait ends at once (the real backoff
    // sleep; the abort comes as the wait begins, an event, not after a while).
    fake.enqueue({ status: 429, body: openAIErrorBody('rate'), headers: { 'retry-after': '30' } });
    const second = new AbortController();
    const waits: number[] = [];
    const waiting = clientFor('openai', 'gpt-4.1-mini', fake.baseUrl, {
      sleep: (ms, signal) => {
        waits.push(ms);
        const sleeping = abortableSleep(ms, signal);
        second.abort();
        return sleeping;
      },
    });
    expect(((await failure(waiting.complete({ ...ask, signal: second.signal }))) as LlmError).code).toBe(
      'cancelled',
    );
    expect(waits).toEqual([30_000]);
  });

  it('reports an error object inside the stream', async () => {
    fake.enqueue([{ error: { message: 'upstream exploded', type: 'server_error' } }]);
    fake.fallback = textReply('recovered');
    const client = clientFor('openai', 'gpt-4.1-mini', fake.baseUrl);
    expect((await client.complete(ask)).text).toBe('recovered');
    expect(fake.requests).toHaveLength(2);
  });
});

describe('retry policy (Anthropic SDK)', () => {
  const fake = useFakeServer(startFakeAnthropic);

  it('retries 529 overloaded, and fails at once on 401', async () => {
    fake.enqueue(
      { status: 529, body: anthropicErrorBody('Overloaded', 'overloaded_error') },
      anthropicTextReply('hi there'),
    );
    const client = clientFor('anthropic', 'claude-test', fake.baseUrl, {}, { temperature: 0.2 });
    const parts = await collectParts(client.stream(ask));
    expect(
      parts
        .filter((p) => p.type === 'text')
        .map((p) => (p as { text: string }).text)
        .join(''),
    ).toBe('hi there');
    expect(fake.requests).toHaveLength(2);
    const auth = fake.requests[0]!.headers;
    expect(`${auth['x-api-key'] ?? ''} ${auth.authorization ?? ''}`).toContain(TEST_KEY);

    fake.enqueue({ status: 401, body: anthropicErrorBody('invalid x-api-key', 'authentication_error') });
    const err = (await failure(client.complete(ask))) as LlmError;
    expect(err.code).toBe('auth');
    expect(err.message).toContain('ANTHROPIC_API_KEY');
    expect(fake.requests).toHaveLength(3);
  });

  it('maps an overloaded error event inside the stream and retries it', async () => {
    fake.enqueue(
      {
        chunks: [
          'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
        ],
      },
      anthropicTextReply('after overload'),
    );
    const client = clientFor('anthropic', 'claude-test', fake.baseUrl, {}, { temperature: 0.2 });
    expect((await client.complete(ask)).text).toBe('after overload');
  });
});
