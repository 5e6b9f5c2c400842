/**
 * Scenario 16: what Anthropic prompt caching saves an agent turn (issue 28 §3). Agent mode as Scout
 * runs it (runAgent: the real tools' definitions, prompts, tool phase and answer phase), its model
 * claude-sonnet-4-6 through the real @anthropic-ai/sdk against the fake Anthropic server, which bills
 * each request by Anthropic's published cache rules (test/helpers/anthropic-prompt-cache.ts). A turn
 * is three rounds — two searches, then the model stops — and the answer call; each search's five
 * results point at corpus pages served on loopback, and the round reads the top two as Scout does
 * by default (AGENT_READ_RESULTS=2, the real reader: ~1,250 tokens a search in scenario 15). Five
 * turns run in a row in one conversation, the history growing as Scout stores it.
 *
 * Billed-equivalent input tokens: what the input costs, in input tokens at the full price — plain input
 * ×1, cache writes ×1.25, cache reads ×0.1 (Anthropic's 5-minute cache). Without caching every input
 * token is billed ×1 (the same requests, their cache_control marks ignored).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { ChatMessage } from '../../src/llm/types.js';
import { createLlmClient } from '../../src/llm/create-llm-client.js';
import { silentLogger } from '../../src/logger.js';
import { runAgent } from '../../src/modes/agent/run-agent.js';
import type { SearchService } from '../../src/search/types.js';
import { createDefaultTools } from '../../src/tools/default-tools.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import {
  billedEquivalent,
  type CacheBill,
  createPromptCacheSim,
} from '../../test/helpers/anthropic-prompt-cache.js';
import {
  anthropicTextReply,
  anthropicToolUseReply,
  startFakeAnthropic,
} from '../../test/helpers/fake-anthropic-server.js';
import { makeTurnContext, testConfig } from '../../test/modes/make-turn-context.js';
import { loadManifest, pageBytes } from '../../test/reader/page-fixtures.js';
import type { BenchContext, ScenarioResult } from '../context.js';

const TURNS = 5;
const MODEL = 'claude-sonnet-4-6';
/** Round 3 is the model stopping: two searches per turn. */
const SEARCHES_PER_TURN = 2;

const SENTENCES = [
  'The harbour authority published its annual traffic report on Tuesday.',
  'Passenger numbers on the cross-harbour ferry rose for the third year in a row.',
  'Officials credited the new timetable and the extension of evening services.',
  'Freight volumes, by contrast, fell slightly as two shipping lines moved to the northern terminal.',
  'The report also lists the maintenance work planned for the coming winter.',
  'Local businesses near the pier said footfall on weekends had never been higher.',
  'A council spokesperson said the figures would inform next year’s budget talks.',
  'Critics pointed out that fares have risen faster than inflation since 2022.',
];

/** Deterministic prose of about `chars` characters, different for every `seed`. */
function prose(seed: number, chars: number): string {
  const out: string[] = [];
  let length = 0;
  for (let i = 0; length < chars; i++) {
    const sentence = `${SENTENCES[(seed * 3 + i) % SENTENCES.length]} (${seed}.${i})`;
    out.push(sentence);
    length += sentence.length + 1;
  }
  return out.join(' ');
}

/** Serves corpus articles (test/fixtures/pages) at `/page/<n>` on loopback. */
async function servePages(): Promise<{ server: Server; base: string }> {
  const articles = loadManifest().filter(
    (p) => p.contentType.startsWith('text/html') && /utf-8/i.test(p.contentType),
  );
  const server = createServer((req, res) => {
    const index = Number(/\/page\/(\d+)/.exec(req.url ?? '')?.[1] ?? -1);
    const entry = articles[index % articles.length];
    if (index < 0 || !entry) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(Buffer.from(pageBytes(entry)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A search service whose five results point at corpus pages (snippets ~200 characters, as Tavily's). */
function stubSearch(pagesBase: string): SearchService {
  let calls = 0;
  return {
    available: true,
    providerName: 'tavily',
    async search(query) {
      const first = calls++ * 5;
      const results = Array.from({ length: 5 }, (_, i) => ({
        title: `${query} — result ${i + 1}`,
        url: `${pagesBase}/page/${first + i}`,
        snippet: prose(first + i, 200),
      }));
      return { results, cached: false };
    },
    async clearSession() {},
  };
}

/** Billed-equivalent input tokens with the cache, and input tokens without it. */
interface Billed {
  cached: number;
  uncached: number;
}

interface TurnBill extends Billed {
  calls: CacheBill[];
}

function billed(calls: CacheBill[]): Billed {
  return {
    cached: calls.reduce((n, b) => n + billedEquivalent(b), 0),
    uncached: calls.reduce((n, b) => n + b.totalTokens, 0),
  };
}

export async function promptCache(ctx: BenchContext): Promise<ScenarioResult> {
  const fake = await startFakeAnthropic();
  let sim = createPromptCacheSim();
  const observationTokens: number[] = [];
  let toolRound = 0;
  fake.fallback = (body: Record<string, unknown>) => {
    const usage = { ...sim.bill(body), outputTokens: 60 };
    if (!body['tools']) return anthropicTextReply(prose(sim.bills.length, 1_400), { usage });
    const messages = body['messages'] as Array<{ content: Array<Record<string, unknown>> }>;
    const result = messages.at(-1)?.content.find((b) => b['type'] === 'tool_result');
    if (typeof result?.['content'] === 'string') observationTokens.push(countTokens(result['content']));
    toolRound += 1;
    if (toolRound > SEARCHES_PER_TURN) return anthropicTextReply('I have what the answer needs.', { usage });
    return anthropicToolUseReply([{ name: 'web_search', input: { query: `harbour ferry ${toolRound}` } }], {
      usage,
      text: 'Searching for the figures.',
    });
  };
  const env = {
    ANTHROPIC_API_KEY: 'sk-ant-bench',
    ANTHROPIC_BASE_URL: fake.baseUrl,
    AGENT_READ_RESULTS: '2',
  };
  const config = testConfig(env);
  const pages = await servePages();
  const search = stubSearch(pages.base);
  // The real default tools; fetch_url may read the loopback pages.
  const registry = createToolRegistry(
    createDefaultTools({ search, config, fetchUrl: { allowPrivate: true } }),
    { logger: silentLogger },
  );
  const llm = createLlmClient(
    { provider: 'anthropic', model: MODEL, temperature: 0.3 },
    {
      endpoints: { anthropic: { apiKey: env.ANTHROPIC_API_KEY, baseUrl: fake.baseUrl } },
      logger: silentLogger,
    },
  );
  ctx.log(
    `scenario 16: ${TURNS} agent turns of three rounds on ${MODEL}, billed with and without the prompt cache`,
  );
  const turns: TurnBill[] = [];
  const history: ChatMessage[] = [];
  try {
    // A turn that starts the reader's worker pool (its first pages may miss their time budget), billed
    // by a cache that is then thrown away: turn 1 below starts cold.
    toolRound = 0;
    await runAgent(
      makeTurnContext({ text: 'Warm-up question?', llm: { tool: llm }, env, registry, search }).ctx,
    );
    sim = createPromptCacheSim();
    observationTokens.length = 0;
    for (let turn = 1; turn <= TURNS; turn++) {
      toolRound = 0;
      const question = `Turn ${turn}: how many passengers did the harbour ferry carry, and what changed since last year?`;
      const made = makeTurnContext({ text: question, llm: { tool: llm }, env, registry, search });
      made.ctx.history = [...history];
      const before = sim.bills.length;
      const result = await runAgent(made.ctx);
      if (!result.answer) throw new Error(`scenario 16: turn ${turn} gave no answer`);
      // What Scout stores after a turn: the question and the answer.
      history.push({ role: 'user', content: question }, { role: 'assistant', content: result.answer });
      const calls = sim.bills.slice(before);
      turns.push({ calls, ...billed(calls) });
    }
  } finally {
    await fake.close();
    await new Promise<void>((resolve) => {
      pages.server.close(() => resolve());
      pages.server.closeAllConnections();
    });
  }

  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const share = (t: Billed) => (100 * t.cached) / t.uncached;
  const line = (t: Billed) =>
    `${fmt(t.cached)} billed-equivalent input tokens with caching vs ${fmt(t.uncached)} without (${share(t).toFixed(0)} %)`;
  const followUps = turns.slice(1);
  const mean = (list: Billed[]): Billed => ({
    cached: list.reduce((n, t) => n + t.cached, 0) / list.length,
    uncached: list.reduce((n, t) => n + t.uncached, 0) / list.length,
  });
  // The tool phase alone: the three rounds of the tool model, without the answer call.
  const toolPhase = (t: TurnBill) => billed(t.calls.slice(0, 3));
  const prefix = sim.bills[0]!.totalTokens;
  const observation = observationTokens.reduce((n, t) => n + t, 0) / Math.max(1, observationTokens.length);
  const rows: Array<[string, string]> = [
    ['turn 1 (cold cache)', line(turns[0]!)],
    [`turns 2–${TURNS} (follow-ups), mean per turn`, line(mean(followUps))],
    [`turn ${TURNS}`, line(turns.at(-1)!)],
    [`turns 2–${TURNS}, tool phase alone (3 rounds)`, line(mean(followUps.map(toolPhase)))],
    [
      'sizes',
      `first request ${fmt(prefix)} tokens (system prompt, 3 tool definitions, question) · observation per search ${fmt(observation)} tokens · 4 calls per turn`,
    ],
  ];
  return {
    id: 16,
    name: `Anthropic prompt caching: billed-equivalent input per three-round agent turn (${MODEL})`,
    rows,
    targets: [
      {
        target: 'a follow-up agent turn bills well under half its uncached input (issue 28)',
        measured: `${share(mean(followUps)).toFixed(0)} %`,
        met: share(mean(followUps)) < 50,
      },
    ],
    data: {
      model: MODEL,
      turns: turns.map((t) => ({ cached: t.cached, uncached: t.uncached, calls: t.calls })),
      firstRequestTokens: prefix,
      observationTokens: observation,
    },
  };
}
