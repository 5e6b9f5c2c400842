/**
 * `npm run bench` (SPEC §12): drives the real Scout core behind the real Slack surface against
 * local fakes (a streaming OpenAI-compatible model, a Tavily-compatible search API, the Slack Web
 * API) and reports overhead, CPU, memory, Web API calls, edit rates and first-token latency.
 *
 *   1 single agent turn, repeated     4 model's first token → first visible answer edit
 *   2 N concurrent agent turns        5 store backends side by side (memory, SQLite, Redis)
 *   3 10k idle sessions in the store   6 Scout vs a minimal Chat SDK bot (own processes, chat mode,
 *                                        20, 50 and 100 tokens/s)
 *                                      7 cold start: npm start, the Docker image's command, the bundle
 *                                        (--once) against node -e 0
 *                                      8 HTML to text on 512 KB hostile and normal pages
 *                                      9 MCP tool call over stdio (server-everything)
 *                                     10 context assembly
 *                                     11 agent turns in own process (vs --agent-baseline)
 *                                     12 1,000 concurrent agent turns, Scout as its own process
 *                                     13 16 concurrent 40k answers under Slack's Tier 3 (real time)
 *                                     14 page reader: corpus + hostile pages, F1 (SCOUT_AEB_DIR: AEB)
 *                                     15 reading search results in the round: cost per AGENT_READ_RESULTS
 *                                     16 Anthropic prompt caching: billed input per agent turn
 *                                     17 OpenTelemetry traces: CPU per agent turn, on against off
 *                                     18 web chat: token latency, 300 browsers streaming against 300
 *                                        terminal turns (CPU, memory per connection), the page (size,
 *                                        origins, time to interactive in chromium)
 *                                     19 reading under load (two busy processes): --read over 1,000
 *                                        pages, 100 result pages in flight (SCOUT_WCXB_DIR: real pages)
 *
 * Sizes: see options.ts (`--quick`, `--turns=20`, `BENCH_CONCURRENCY=100,500`, `--scenarios=1,4`).
 */
import { pathToFileURL } from 'node:url';
import { type BenchContext, fakeSpeed, type ScenarioResult } from './context.js';
import { startFakesHandle } from './fakes/fakes-client.js';
import { type BenchOptions, parseOptions } from './options.js';
import { formatTable, machine, writeJson } from './report.js';
import { agentProcess } from './scenarios/agent-process.js';
import { concurrentTurns } from './scenarios/concurrent.js';
import { contextAssembly } from './scenarios/context-assembly.js';
import { firstToken } from './scenarios/first-token.js';
import { htmlConversion } from './scenarios/html-conversion.js';
import { idleSessions } from './scenarios/idle-sessions.js';
import { massAgentTurns } from './scenarios/mass-agent-turns.js';
import { mcpToolCall } from './scenarios/mcp-tool-call.js';
import { pageReader } from './scenarios/page-reader.js';
import { promptCache } from './scenarios/prompt-cache.js';
import { readResults } from './scenarios/read-results.js';
import { readUnderLoad } from './scenarios/read-under-load.js';
import { peerComparison } from './scenarios/peer.js';
import { singleTurn } from './scenarios/single-turn.js';
import { startUp } from './scenarios/start-up.js';
import { storeBackends } from './scenarios/store-backends.js';
import { tier3Finals } from './scenarios/tier3-finals.js';
import { tracingOverhead } from './scenarios/tracing-overhead.js';
import { webChat } from './scenarios/web-chat.js';

const SCENARIOS: Record<number, (ctx: BenchContext) => Promise<ScenarioResult>> = {
  1: singleTurn,
  2: concurrentTurns,
  3: idleSessions,
  4: firstToken,
  5: storeBackends,
  6: peerComparison,
  7: startUp,
  8: htmlConversion,
  9: mcpToolCall,
  10: contextAssembly,
  11: agentProcess,
  12: massAgentTurns,
  13: tier3Finals,
  14: pageReader,
  15: readResults,
  16: promptCache,
  17: tracingOverhead,
  18: webChat,
  19: readUnderLoad,
};

export async function runBench(
  options: BenchOptions,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<ScenarioResult[]> {
  const fakes = await startFakesHandle(fakeSpeed(options, options.tokensPerSecond), options.inProcessFakes);
  const ctx: BenchContext = { options, fakes, log };
  const results: ScenarioResult[] = [];
  try {
    for (const id of options.scenarios) {
      const scenario = SCENARIOS[id];
      if (!scenario) throw new Error(`unknown scenario ${id} (${Object.keys(SCENARIOS).join(', ')})`);
      const started = performance.now();
      results.push(await scenario(ctx));
      log(`  done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
  } finally {
    await fakes.close();
  }
  return results;
}

async function main(): Promise<void> {
  const options = parseOptions();
  const started = performance.now();
  const results = await runBench(options);
  const m = machine();
  process.stdout.write(`${formatTable(results, m)}\n`);
  await writeJson(options.out, results, options, m, performance.now() - started);
  process.stderr.write(`results written to ${options.out}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    process.stderr.write(`benchmark failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
