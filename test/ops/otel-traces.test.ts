/**
 * OpenTelemetry traces (issue 29): the real SDK and OTLP exporter, wired into a whole Scout core
 * the way main.ts wires them, send to an OTLP/HTTP receiver on loopback, which decodes what arrives
 * (protobuf, the exporter's default; JSON when asked for). One agent turn that reads its thread,
 * searches and answers must arrive as one trace: the turn's span, and under it the model calls
 * (GenAI conventions), the tool call with its search under it, the thread reading and the delivery;
 * with no message text unless content capture is switched on, and never a key. An endpoint that is
 * down neither slows turns nor fills the log, and shutdown waits for it only so long.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Config, loadConfig } from '../../src/config/env.js';
import type { ThreadMessage } from '../../src/context/types.js';
import { buildScout } from '../../src/core/build-scout.js';
import type { Scout } from '../../src/core/scout.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { ExportReporter } from '../../src/ops/tracing/export-reporter.js';
import { FLUSH_BOUND_MS, startTracing, type Tracing } from '../../src/ops/tracing/start-tracing.js';
import { TraceThread } from '../../src/ops/tracing/trace-thread.js';
import { createStores } from '../../src/store/create-stores.js';
import type { Stores } from '../../src/store/types.js';
import type { IncomingMessage } from '../../src/surface.js';
import { type FakeOpenAI, startFakeOpenAI, textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import {
  type FakeSearchServer,
  FAKE_TAVILY_KEY,
  startFakeSearchServer,
} from '../helpers/fake-search-server.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { fakeEnv, RecordingSink, TEST_LLM_KEY } from '../helpers/scout-harness.js';

const QUESTION = 'What did the quarterly planning thread decide about Zephyrine?';
const THREAD_TEXT = 'Earlier: we agreed Zephyrine ships in March';
const QUERY = 'zephyrine release march';
const ANSWER = 'Zephyrine ships in March, as the thread agreed.';
/** Words of the texts above that no attribute name or id contains. */
const CONTENT_MARKERS = ['Zephyrine', 'zephyrine', 'quarterly planning'];

/** Lines the logger wrote, parsed. */
class LogLines extends Writable {
  readonly lines: Record<string, unknown>[] = [];
  override _write(chunk: Buffer, _enc: string, done: () => void): void {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) this.lines.push(JSON.parse(line));
    done();
  }
}

interface Setup {
  scout: Scout;
  tracing: Tracing;
  config: Config;
  log: LogLines;
}

describe('OpenTelemetry traces', { timeout: 30_000 }, () => {
  let llm: FakeOpenAI;
  let search: FakeSearchServer;
  let receiver: OtlpReceiver;
  let stores: Stores;
  let setup: Setup | undefined;
  const saved = { ...process.env };

  beforeEach(async () => {
    llm = await startFakeOpenAI();
    search = await startFakeSearchServer();
    receiver = await startOtlpReceiver();
    stores = await createStores({
      url: 'memory://',
      sessionTtlMs: 60_000,
      logger: createLogger({ level: 'silent' }),
    });
  });

  afterEach(async () => {
    // A test that failed before shutting tracing down must not leave the global provider behind.
    await setup?.tracing.shutdown().catch(() => undefined);
    await setup?.scout.shutdown(0);
    setup = undefined;
    process.env = { ...saved };
    await stores.close();
    await llm.close();
    await search.close();
    await receiver.close();
  });

  /** Scout with traces, as main.ts builds it: the OTEL_ variables are in the process environment. */
  async function start(env: Record<string, string>): Promise<Setup> {
    const all: Record<string, string> = {
      ...fakeEnv(llm, search),
      DEFAULT_MODE: 'agent',
      AGENT_READ_RESULTS: '0',
      // A price for the fake model, so the turn and its calls carry a cost.
      PRICE_TABLE: JSON.stringify({ 'openai/test-model': { input: 1, output: 2 } }),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      ...env,
    };
    // The exporter reads its variables from the environment itself, as in production.
    Object.assign(process.env, all);
    const config = loadConfig(all);
    const log = new LogLines();
    const logger: Logger = createLogger({ level: 'debug', destination: log });
    const tracing = await startTracing(config, logger);
    const scout = await buildScout({ config, logger, stores, ...tracing.instrument() });
    setup = { scout, tracing, config, log };
    return setup;
  }

  let counter = 0;
  /** A Slack-like message whose thread holds one earlier message. */
  function message(text = QUESTION): IncomingMessage {
    counter += 1;
    const earlier: ThreadMessage[] = [{ id: '1.0', author: 'alice', text: THREAD_TEXT }];
    return {
      channelId: 'slack:T1:C1',
      conversationId: `slack:T1:C1:${counter}.0`,
      messageId: `m${counter}`,
      userId: 'U1',
      userName: 'tester',
      text,
      context: {
        messageId: `${counter}.5`,
        attachments: [],
        earlier: async () => earlier,
        download: async () => ({ ok: false, reason: 'failed' }),
      },
    };
  }

  /** One agent turn: a web search, then the answer. */
  async function agentTurn(s: Setup, text = QUESTION): Promise<RecordingSink> {
    llm.enqueue(toolCallReply([{ name: 'web_search', arguments: { query: QUERY } }]));
    // Every later call (the next tool decision, the answer) answers.
    llm.fallback = textReply(ANSWER);
    const sink = new RecordingSink();
    await s.scout.handleMessage(message(text), sink);
    return sink;
  }

  const roots = (spans: ReceivedSpan[]) => spans.filter((s) => s.parentSpanId === '');
  const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) =>
    spans.filter((s) => s.parentSpanId === parent.spanId);

  it('sends one trace per agent turn: model calls, tool and search, thread reading, delivery — no message text', async () => {
    const s = await start({});
    const first = await agentTurn(s);
    expect(first.final?.answer).toContain('March');
    await agentTurn(s);
    await s.tracing.shutdown();

    const spans = receiver.spans();
    expect(receiver.requests.every((r) => r.contentType === 'application/x-protobuf')).toBe(true);
    const turns = roots(spans);
    expect(turns.map((t) => t.name)).toEqual(['invoke_agent Scout', 'invoke_agent Scout']);
    expect(new Set(spans.map((sp) => sp.traceId)).size).toBe(2);

    const turn = turns[0]!;
    const inTurn = spans.filter((sp) => sp.traceId === turn.traceId);
    expect(turn.resource['service.name']).toBe('scout');
    expect(turn.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'Scout',
      'scout.surface': 'slack',
      'scout.mode': 'agent',
      'scout.outcome': 'ok',
      'scout.tool_calls': 1,
      'scout.searches': 1,
    });
    expect(turn.attributes['scout.cost_usd']).toBeGreaterThan(0);
    expect(turn.statusCode).not.toBe(2);

    const children = childrenOf(spans, turn);
    const names = children.map((c) => c.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'read_context thread',
        'chat test-model',
        'execute_tool web_search',
        'deliver',
      ]),
    );
    // Every span of the turn hangs under it: nothing lost its parent.
    for (const sp of inTurn)
      if (sp !== turn) expect(inTurn.some((p) => p.spanId === sp.parentSpanId)).toBe(true);

    const thread = children.find((c) => c.name === 'read_context thread')!;
    expect(thread.attributes['scout.context.messages']).toBe(1);

    const calls = children.filter((c) => c.name === 'chat test-model');
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const call of calls) {
      expect(call.kind).toBe(3); // CLIENT
      expect(call.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.system': 'openai',
        'gen_ai.request.model': 'test-model',
        'gen_ai.response.model': 'fake-model',
        'gen_ai.usage.input_tokens': 10,
        'gen_ai.usage.output_tokens': 5,
        'gen_ai.usage.reasoning.output_tokens': 0,
      });
      expect(call.attributes['scout.cost_usd']).toBeCloseTo((10 * 1 + 5 * 2) / 1e6, 12);
    }
    const reasons = calls.map((c) => c.attributes['gen_ai.response.finish_reasons']);
    expect(reasons).toContainEqual(['tool_calls']);
    expect(reasons).toContainEqual(['stop']);

    const tool = children.find((c) => c.name === 'execute_tool web_search')!;
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'web_search',
      'gen_ai.tool.type': 'function',
    });
    const [searchSpan] = childrenOf(spans, tool);
    expect(searchSpan?.name).toBe('search tavily');
    expect(searchSpan?.attributes).toMatchObject({
      'scout.search.provider': 'tavily',
      'scout.search.cached': false,
    });
    expect(searchSpan?.attributes['scout.search.results']).toBeGreaterThan(0);

    const deliver = children.find((c) => c.name === 'deliver')!;
    expect(deliver.attributes['scout.surface']).toBe('slack');
    expect(deliver.attributes['scout.delivery.updates']).toBeGreaterThan(0);
    // The delivery is the turn's last act: it starts after every model call ended.
    expect(deliver.startMs).toBeGreaterThanOrEqual(Math.max(...calls.map((c) => c.endMs)));

    // No message text anywhere in what was sent (the question, the thread, the query, the answer),
    // and no key: checked on the raw bytes, not only on what the decoder understood.
    const sent = Buffer.concat(receiver.requests.map((r) => r.body)).toString('latin1');
    for (const marker of [...CONTENT_MARKERS, TEST_LLM_KEY, FAKE_TAVILY_KEY])
      expect(sent).not.toContain(marker);
    const attributeNames = spans.flatMap((sp) => Object.keys(sp.attributes));
    expect(attributeNames).not.toContain('gen_ai.input.messages');
    expect(attributeNames).not.toContain('scout.question');
  });

  it('keeps concurrent turns apart: every call of a turn hangs under that turn, passed without an async context', async () => {
    const s = await start({ OTEL_CAPTURE_CONTENT: 'true' });
    const markers = ['Aldebaran', 'Betelgeuse'];
    await Promise.all(markers.map((marker) => agentTurn(s, `${QUESTION} (${marker})`)));
    await s.tracing.shutdown();

    const spans = receiver.spans();
    const turns = roots(spans);
    expect(turns.length).toBe(2);
    for (const turn of turns) {
      const [own, other] = String(turn.attributes['scout.question']).includes(markers[0]!)
        ? markers
        : [...markers].reverse();
      const inTurn = spans.filter((sp) => sp.traceId === turn.traceId);
      for (const sp of inTurn)
        if (sp !== turn) expect(inTurn.some((p) => p.spanId === sp.parentSpanId)).toBe(true);
      const calls = inTurn.filter((sp) => sp.name === 'chat test-model');
      expect(calls.length).toBeGreaterThanOrEqual(1);
      for (const call of calls) {
        const input = String(call.attributes['gen_ai.input.messages']);
        expect(input).toContain(own);
        expect(input).not.toContain(other);
      }
      expect(childrenOf(spans, turn).map((c) => c.name)).toContain('deliver');
      for (const searchSpan of inTurn.filter((sp) => sp.name === 'search tavily'))
        expect(inTurn.find((p) => p.spanId === searchSpan.parentSpanId)?.name).toBe(
          'execute_tool web_search',
        );
    }
    expect(spans.filter((sp) => sp.name === 'search tavily').length).toBeGreaterThanOrEqual(1);
  });

  it('puts message text on spans only when OTEL_CAPTURE_CONTENT is on, still without keys', async () => {
    const s = await start({ OTEL_CAPTURE_CONTENT: 'true' });
    // A user pasting the model key into a question: captured, the key is not.
    await agentTurn(s, `${QUESTION} (my key is ${TEST_LLM_KEY})`);
    await s.tracing.shutdown();

    const spans = receiver.spans();
    const [turn] = roots(spans);
    expect(turn?.attributes['scout.question']).toContain('quarterly planning thread');
    expect(turn?.attributes['scout.answer']).toContain('Zephyrine ships in March');
    const calls = spans.filter((sp) => sp.name === 'chat test-model');
    const input = JSON.parse(String(calls[0]?.attributes['gen_ai.input.messages'])) as { role: string }[];
    expect(input.map((m) => m.role)).toContain('user');
    expect(String(calls[0]?.attributes['gen_ai.input.messages'])).toContain('quarterly planning');
    const output = calls.map((c) => String(c.attributes['gen_ai.output.messages']));
    expect(output.join('\n')).toContain('web_search');
    expect(output.join('\n')).toContain('ships in March');
    const tool = spans.find((sp) => sp.name === 'execute_tool web_search');
    expect(String(tool?.attributes['gen_ai.tool.call.arguments'])).toContain(QUERY);
    expect(String(tool?.attributes['gen_ai.tool.call.result']).length).toBeGreaterThan(0);
    expect(spans.find((sp) => sp.name === 'search tavily')?.attributes['scout.search.query']).toBe(QUERY);

    const sent = Buffer.concat(receiver.requests.map((r) => r.body)).toString('latin1');
    expect(sent).toContain('Zephyrine');
    expect(sent).not.toContain(TEST_LLM_KEY);
    expect(sent).not.toContain(FAKE_TAVILY_KEY);
  });

  it('exports OTLP/JSON when OTEL_EXPORTER_OTLP_PROTOCOL=http/json, with the configured headers', async () => {
    const s = await start({
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-backend-key=bk-0123456789abcdef',
      OTEL_SERVICE_NAME: 'scout-staging',
    });
    await agentTurn(s);
    await s.tracing.shutdown();
    expect(receiver.requests[0]?.contentType).toContain('application/json');
    expect(receiver.requests[0]?.headers['x-backend-key']).toBe('bk-0123456789abcdef');
    const [turn] = roots(receiver.spans());
    expect(turn?.name).toBe('invoke_agent Scout');
    expect(turn?.resource['service.name']).toBe('scout-staging');
    expect(receiver.spans().some((sp) => sp.name === 'execute_tool web_search')).toBe(true);
  });

  it("sends exports from a thread of its own: the main thread's HTTP client never carries one", async () => {
    // Node publishes every request its HTTP client starts, on the thread that starts it.
    const hosts: string[] = [];
    const started = (message: unknown) =>
      hosts.push(String((message as { request: ClientRequest }).request.getHeader('host')));
    subscribe('http.client.request.start', started);
    try {
      const s = await start({});
      await agentTurn(s);
      await s.tracing.shutdown();
    } finally {
      unsubscribe('http.client.request.start', started);
    }
    expect(roots(receiver.spans()).length).toBe(1);
    // The turn's model calls went out from here (the channel saw them); the export did not.
    expect(hosts).toContain(new URL(llm.baseUrl).host);
    expect(hosts).not.toContain(new URL(receiver.endpoint).host);
  });

  it('puts the trace id on the log lines written during a turn, and only there', async () => {
    const s = await start({});
    await agentTurn(s);
    await s.tracing.shutdown();
    const [turn] = roots(receiver.spans());
    const during = s.log.lines.filter((l) => l.msg === 'tool done');
    expect(during.length).toBe(1);
    expect(during[0]?.trace_id).toBe(turn?.traceId);
    expect(String(during[0]?.span_id)).toMatch(/^[0-9a-f]{16}$/);
    const started = s.log.lines.find(
      (l) => l.msg === 'tracing on: one trace per turn, exported over OTLP/HTTP',
    );
    expect(started).toBeDefined();
    expect(started?.trace_id).toBeUndefined();
  });

  it('a turn the sampler leaves out is answered as an untraced one: no span sent, no trace id on its log lines', async () => {
    const s = await start({ OTEL_TRACES_SAMPLER: 'always_off' });
    const sink = await agentTurn(s);
    await s.tracing.shutdown();
    expect(sink.final?.answer).toContain('Zephyrine ships in March');
    expect(receiver.spans()).toEqual([]);
    const during = s.log.lines.filter((l) => l.msg === 'tool done');
    expect(during.length).toBe(1);
    // A sampled-out span still has ids; a log line naming them would point at a trace nobody has.
    expect(during[0]).not.toHaveProperty('trace_id');
    expect(s.log.lines.filter((l) => 'trace_id' in l)).toEqual([]);
  });

  /** A collector that accepts connections and never answers (black-holed), for `fn`. */
  async function withBlackhole(fn: (endpoint: string, sockets: Socket[]) => Promise<void>): Promise<void> {
    const sockets: Socket[] = [];
    const blackhole: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => blackhole.listen(0, '127.0.0.1', resolve));
    const port = (blackhole.address() as { port: number }).port;
    try {
      await fn(`http://127.0.0.1:${port}`, sockets);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => blackhole.close(() => resolve()));
    }
  }

  it('an endpoint that never answers slows no turn, and shutdown gives up on it after its bound', async () => {
    await withBlackhole(async (endpoint, sockets) => {
      // Each export would wait 30 s for an answer; exports start 20 ms after a span ends.
      const exportLimitMs = 30_000;
      const s = await start({
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_EXPORTER_OTLP_TIMEOUT: String(exportLimitMs),
        OTEL_BSP_SCHEDULE_DELAY: '20',
      });
      // The first turn's spans start an export, which hangs: waited for as an event (the trace
      // thread loads the SDK first, seconds on a busy machine), not for a while.
      await agentTurn(s);
      await until(() => sockets.length > 0);
      for (let i = 0; i < 3; i++) {
        const sink = await agentTurn(s);
        expect(sink.final?.answer).toContain('March');
      }
      // No turn waited for the hanging export: it has not ended yet (it fails only at its 30 s
      // limit, and its failure would be logged), and the collector still holds its connection.
      expect(s.log.lines.filter((l) => String(l.msg).startsWith('trace export failed'))).toEqual([]);
      expect(sockets.some((socket) => !socket.destroyed)).toBe(true);

      const stopping = performance.now();
      await s.tracing.shutdown();
      const took = performance.now() - stopping;
      // Shutdown gave up at its own bound (a timer: never early), not at the export's limit: the
      // export had still not failed when shutdown returned (an event, not "under 15 s").
      expect(took).toBeGreaterThanOrEqual(FLUSH_BOUND_MS - 5);
      expect(s.log.lines.some((l) => String(l.msg).startsWith('trace flush cut off'))).toBe(true);
      expect(s.log.lines.filter((l) => String(l.msg).startsWith('trace export failed'))).toEqual([]);
    });
  });

  it('an endpoint that refuses exports is logged once, and once again when it accepts them', async () => {
    // Every span handed to the trace thread, and every export's result as the thread reports it.
    const sent = vi.spyOn(TraceThread.prototype, 'send');
    const reported = vi.spyOn(ExportReporter.prototype, 'exported');
    const lost = vi.spyOn(ExportReporter.prototype, 'lost');
    const allReported = () =>
      until(() => reported.mock.calls.reduce((n, [spans]) => n + spans, 0) === sent.mock.calls.length);
    try {
      await refusedThenAccepted(allReported);
      // Every span lost was a refused export's: the trace thread never died (a refused export's
      // rejected flush once ended it, and the thread that replaced it logged the failure again).
      expect(lost.mock.calls.map(([, err]) => String(err))).not.toContainEqual(
        expect.stringContaining('trace thread'),
      );
    } finally {
      sent.mockRestore();
      reported.mockRestore();
      lost.mockRestore();
    }
  });

  async function refusedThenAccepted(allReported: () => Promise<void>): Promise<void> {
    const s = await start({ OTEL_BSP_SCHEDULE_DELAY: '20' });
    receiver.refuseWith = 400;
    for (let i = 0; i < 3; i++) {
      await agentTurn(s);
      // The turn's spans were exported, refused, and the thread said so: no refused export is
      // still under way when the next turn starts (or when the endpoint accepts again).
      await allReported();
    }
    expect(receiver.requests.length).toBeGreaterThanOrEqual(3);
    const failures = s.log.lines.filter((l) => String(l.msg).startsWith('trace export failed'));
    expect(failures.length).toBe(1);
    expect(failures[0]?.level).toBe(40);
    expect(receiver.spans()).toEqual([]);

    receiver.refuseWith = undefined;
    await agentTurn(s);
    await s.tracing.shutdown();
    expect(roots(receiver.spans()).length).toBe(1);
    const recovered = s.log.lines.find((l) => l.msg === 'trace export works again');
    expect(Number(recovered?.dropped)).toBeGreaterThan(0);
    expect(s.log.lines.filter((l) => String(l.msg).startsWith('trace export failed')).length).toBe(1);
  }
});

/** Resolves once `check` holds (polled); the test's own timeout bounds the wait. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}
