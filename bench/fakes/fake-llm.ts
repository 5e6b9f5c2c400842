/**
 * A benchmark LLM: an OpenAI-compatible `POST /v1/chat/completions` server that streams like a real
 * model (a first-token delay, then N tokens at R tokens/second) and decides what to answer from the
 * request itself, so any number of concurrent agent turns need no script:
 *
 * - tools offered and fewer than `searchesPerTurn` tool messages so far → one `web_search` call;
 * - tools offered and enough searches → a short "done" text (the agent's limits usually stop first);
 * - no tools → the answer: `answerTokens` words starting with ANSWER_MARKER, ending with END_MARKER.
 *
 * Every request is recorded with its turn tag (`bench-t…` found in the body), when it arrived, when
 * the first answer content was written and when the response ended — the model time Scout waited.
 * One shared ticker writes all due tokens of all streams, so 500 streams cost 500 writes per tick,
 * not 500 timers per token.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** First word of every answer: the fake Slack API looks for it to find the first visible answer edit. */
export const ANSWER_MARKER = 'Answerqz';
/** Last word of every answer: its presence at Slack proves the whole answer was delivered. */
export const END_MARKER = 'Endqz';
/** Matches the turn tag the bench puts in every user message. */
export const TURN_TAG = /bench-t[0-9a-z-]+/;
/** Tokens a tool-call decision "generates" (arguments JSON), paid at the stream's token rate. */
const TOOL_CALL_TOKENS = 20;
/** Words of the answer, cycled; short and plain so markdown rendering leaves them as they are. */
const WORDS = ['scout', 'search', 'answer', 'stream', 'model', 'result', 'source', 'latency', 'thread'];
/** A paragraph break every this many words, like real answers. */
const PARAGRAPH_WORDS = 40;

export interface FakeLlmSpeed {
  firstTokenMs: number;
  tokensPerSecond: number;
  answerTokens: number;
  searchesPerTurn: number;
  /** How often the shared ticker writes due tokens (bigger = fewer, larger chunks). */
  tickMs: number;
  /** Record every answer write in `LlmRecord.writes` (scenario 18's token latency). */
  recordWrites?: boolean;
}

export interface LlmRecord {
  turn: string;
  kind: 'tool' | 'answer' | 'other';
  /** `performance.timeOrigin + performance.now()` (epoch ms, sub-ms precision; comparable across processes). */
  start: number;
  firstContent?: number;
  end: number;
  /** With `recordWrites`: each content write, as [epoch ms, characters of content written so far]. */
  writes?: Array<[number, number]>;
}

export interface FakeLlm {
  readonly baseUrl: string;
  speed: FakeLlmSpeed;
  records: LlmRecord[];
  close(): Promise<void>;
}

export const epochNow = (): number => performance.timeOrigin + performance.now();

interface Stream {
  res: ServerResponse;
  record: LlmRecord;
  tokens: string[];
  sent: number;
  /** Characters of content written so far. */
  chars: number;
  startsAt: number;
  rate: number;
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'bench-model',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  })}\n\n`;

const usage = (input: number, output: number) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'bench-model',
    choices: [],
    usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
  })}\n\ndata: [DONE]\n\n`;

function answerTokens(count: number): string[] {
  const out = [ANSWER_MARKER];
  for (let i = 1; i < count - 1; i++) {
    const word = WORDS[i % WORDS.length]!;
    out.push(i % PARAGRAPH_WORDS === 0 ? `.\n\n${word}` : ` ${word}`);
  }
  out.push(` ${END_MARKER}.`);
  return out;
}

export async function startFakeLlm(speed: FakeLlmSpeed): Promise<FakeLlm> {
  const streams = new Set<Stream>();
  const fake: FakeLlm = { baseUrl: '', speed, records: [], close: async () => {} };

  const tick = () => {
    const now = epochNow();
    for (const s of streams) {
      if (now < s.startsAt) continue;
      const due = Math.min(s.tokens.length, 1 + Math.floor(((now - s.startsAt) / 1000) * s.rate));
      if (due > s.sent) {
        s.record.firstContent ??= now;
        const content = s.tokens.slice(s.sent, due).join('');
        s.res.write(chunk({ content }));
        s.sent = due;
        s.chars += content.length;
        s.record.writes?.push([epochNow(), s.chars]);
      }
      if (s.sent >= s.tokens.length) {
        s.res.end(chunk({}, 'stop') + usage(500, s.tokens.length));
        s.record.end = epochNow();
        streams.delete(s);
      }
    }
  };
  const ticker = setInterval(tick, speed.tickMs);

  const handle = (res: ServerResponse, raw: string, start: number) => {
    const { firstTokenMs, tokensPerSecond, searchesPerTurn } = fake.speed;
    const turn = TURN_TAG.exec(raw)?.[0] ?? 'unknown';
    let body: { tools?: unknown[]; messages?: Array<{ role: string }> };
    try {
      body = JSON.parse(raw);
    } catch {
      res.writeHead(400).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
    const searches = (body.messages ?? []).filter((m) => m.role === 'tool').length;
    const record: LlmRecord = {
      turn,
      kind: hasTools ? 'tool' : 'answer',
      start,
      end: start,
      ...(fake.speed.recordWrites ? { writes: [] } : {}),
    };
    fake.records.push(record);
    if (hasTools && searches < searchesPerTurn) {
      const args = JSON.stringify({ query: `${turn} topic ${searches + 1}` });
      const delay = firstTokenMs + (TOOL_CALL_TOKENS / tokensPerSecond) * 1000;
      setTimeout(() => {
        res.write(chunk({ role: 'assistant', content: null }));
        res.write(
          chunk({
            tool_calls: [
              {
                index: 0,
                id: `call_${searches + 1}`,
                type: 'function',
                function: { name: 'web_search', arguments: args },
              },
            ],
          }),
        );
        res.end(chunk({}, 'tool_calls') + usage(500, TOOL_CALL_TOKENS));
        record.end = epochNow();
      }, delay);
      return;
    }
    if (hasTools) record.kind = 'other';
    res.write(chunk({ role: 'assistant', content: '' }));
    streams.add({
      res,
      record,
      tokens: hasTools ? ['Enough information.'] : answerTokens(fake.speed.answerTokens),
      sent: 0,
      chars: 0,
      startsAt: start + firstTokenMs,
      rate: tokensPerSecond,
    });
  };

  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404).end();
      return;
    }
    const start = epochNow();
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => handle(res, Buffer.concat(parts).toString('utf8'), start));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(ticker);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}
