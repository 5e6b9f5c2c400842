import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { silentLogger } from '../../src/logger.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import type { Tool, ToolContext } from '../../src/tools/types.js';

const context = (signal = new AbortController().signal): ToolContext => ({ sessionKey: 's', signal });

const echo: Tool<{ text: string; times?: number }> = {
  name: 'echo',
  description: 'Repeats text.',
  inputSchema: z.object({
    text: z.string().describe('What to repeat'),
    times: z.number().int().min(1).optional(),
  }),
  async run({ text, times }) {
    return { text: text.repeat(times ?? 1) };
  },
};

const sleepy: Tool<Record<string, never>> = {
  name: 'sleepy',
  description: 'Never finishes unless aborted.',
  inputSchema: z.object({}) as unknown as z.ZodType<Record<string, never>>,
  timeoutMs: 50,
  run: (_input, ctx) =>
    new Promise((_resolve, reject) => {
      ctx.signal.addEventListener('abort', () => {
        aborted = true;
        reject(new Error('aborted'));
      });
    }),
};
let aborted = false;

const boom: Tool<Record<string, never>> = {
  name: 'boom',
  description: 'Throws.',
  inputSchema: z.object({}) as unknown as z.ZodType<Record<string, never>>,
  async run() {
    throw new Error('kaput');
  },
};

const all = [echo, sleepy, boom] as Tool[];

describe('tool registry', () => {
  it('emits JSON Schema for each tool, without $schema', () => {
    const registry = createToolRegistry(all, { logger: silentLogger });
    const def = registry.definitions().find((d) => d.name === 'echo');
    expect(def).toEqual({
      name: 'echo',
      description: 'Repeats text.',
      parameters: {
        type: 'object',
        properties: {
          text: { type: 'string', description: 'What to repeat' },
          times: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
        },
        required: ['text'],
      },
    });
  });

  it('validates and runs', async () => {
    const registry = createToolRegistry(all, { logger: silentLogger });
    expect(await registry.execute('echo', '{"text":"ab","times":2}', context())).toEqual({ text: 'abab' });
    // Double-encoded arguments, as some models send them.
    expect(await registry.execute('echo', JSON.stringify('{"text":"x"}'), context())).toEqual({ text: 'x' });
  });

  it('bad JSON, schema errors and unknown tools come back as error text, never a throw', async () => {
    const registry = createToolRegistry(all, { logger: silentLogger });
    const badJson = await registry.execute('echo', '{text: ', context());
    expect(badJson.isError).toBe(true);
    expect(badJson.text).toMatch(/not valid JSON/);
    const wrongType = await registry.execute('echo', '{"text": 3}', context());
    expect(wrongType.isError).toBe(true);
    expect(wrongType.text).toMatch(/text: .*expected string/i);
    expect(wrongType.text).toContain('"required":["text"]');
    const unknown = await registry.execute('nope', '{}', context());
    expect(unknown).toMatchObject({ isError: true });
    expect(unknown.text).toContain('echo, sleepy, boom');
    const thrown = await registry.execute('boom', '{}', context());
    expect(thrown).toEqual({ isError: true, text: 'boom failed: kaput' });
  });

  it('aborts a tool that runs past its timeout', async () => {
    aborted = false;
    const registry = createToolRegistry(all, { logger: silentLogger });
    const out = await registry.execute('sleepy', '{}', context());
    expect(out).toEqual({ isError: true, text: 'sleepy timed out after 50 ms.' });
    expect(aborted).toBe(true);
  });

  it("leaves out of a call's time limit a wait the tool says is not its work, and counts the rest", async () => {
    let paused = () => {};
    const waiting = new Promise<void>((resolve) => {
      paused = resolve;
    });
    let goOn = () => {};
    const wait = new Promise<void>((resolve) => {
      goOn = resolve;
    });
    const patient: Tool<Record<string, never>> = {
      name: 'patient',
      description: 'Waits outside its time limit, then works past it.',
      inputSchema: z.object({}) as unknown as z.ZodType<Record<string, never>>,
      timeoutMs: 50,
      async run(_input, ctx) {
        const resume = ctx.pauseTimeLimit?.();
        paused();
        await wait;
        resume?.();
        return new Promise(() => {});
      },
    };
    const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const registry = createToolRegistry([patient], { logger: silentLogger });
      let out: unknown;
      const call = registry.execute('patient', '{}', context()).then((o) => {
        out = o;
      });
      await waiting;
      vi.advanceTimersByTime(10_000);
      await settle();
      expect(out).toBeUndefined();
      goOn();
      await settle();
      vi.advanceTimersByTime(50);
      await call;
      expect(out).toEqual({ isError: true, text: 'patient timed out after 50 ms.' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('cancellation by the caller ends the call', async () => {
    const registry = createToolRegistry(all, { logger: silentLogger, defaultTimeoutMs: 5_000 });
    const controller = new AbortController();
    const pending = registry.execute('sleepy', '{}', context(controller.signal));
    controller.abort();
    expect(await pending).toEqual({ isError: true, text: 'sleepy was cancelled.' });
  });

  it('honours the allow list and "-name" denials', async () => {
    const allowOnly = createToolRegistry(all, { allow: ['echo'], logger: silentLogger });
    expect(allowOnly.definitions().map((d) => d.name)).toEqual(['echo']);
    expect(allowOnly.has('boom')).toBe(false);
    expect((await allowOnly.execute('boom', '{}', context())).text).toMatch(/Unknown tool "boom"/);
    const deny = createToolRegistry(all, { allow: ['-boom'], logger: silentLogger });
    expect(deny.definitions().map((d) => d.name)).toEqual(['echo', 'sleepy']);
    const none = createToolRegistry(all, { allow: [], logger: silentLogger });
    expect(none.definitions()).toHaveLength(3);
  });
});
