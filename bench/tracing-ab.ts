/**
 * Scenario 17's cost measured without the noise of fresh processes: two Scouts in one process
 * (`npx tsx bench/tracing-ab.ts`), the same configuration and fakes, one built with traces — which
 * register nothing global, so both can live side by side — running agent turns (2 web searches, a
 * streamed 300-word answer, to a recording sink) in alternating blocks. Spans go over OTLP/HTTP
 * protobuf to a receiver in a child process, so its decoding is not counted. The figure is the median
 * of the blocks' paired differences, on − off, in CPU ms per turn; the whole process is counted
 * (fakes included), so the difference, not the ratio, is the result. BLOCK (turns per block, 50),
 * BLOCKS (per side, 20) and CONCURRENT (set: a block's turns run at once, as in scenario 17; unset: one
 * after another) are read from the environment.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { loadConfig } from '../src/config/env.js';
import { buildScout } from '../src/core/build-scout.js';
import type { Scout } from '../src/core/scout.js';
import { createLogger } from '../src/logger.js';
import { startTracing } from '../src/ops/tracing/start-tracing.js';
import { createStores } from '../src/store/create-stores.js';
import { startFakeOpenAI, textReply, toolCallReply } from '../test/helpers/fake-openai-server.js';
import { startFakeSearchServer } from '../test/helpers/fake-search-server.js';
import { fakeEnv, RecordingSink } from '../test/helpers/scout-harness.js';

const BLOCK = Number(process.env.BLOCK ?? 50);
const BLOCKS = Number(process.env.BLOCKS ?? 20);
const ANSWER = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
const SINK = `require('node:http').createServer((q, s) => { q.resume(); q.on('end', () => s.end()); })
  .listen(0, '127.0.0.1', function () { console.log(this.address().port); });`;

const sink = spawn(process.execPath, ['-e', SINK], { stdio: ['ignore', 'pipe', 'inherit'] });
const [port] = (await once(sink.stdout!, 'data')) as [Buffer];
const llm = await startFakeOpenAI();
const search = await startFakeSearchServer();
const env = {
  ...fakeEnv(llm, search),
  DEFAULT_MODE: 'agent',
  AGENT_READ_RESULTS: '0',
  // One simulated user sends a whole block at once: no cap on their running answers.
  MAX_TURNS_PER_USER: '0',
  OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port.toString().trim()}`,
  OTEL_BSP_SCHEDULE_DELAY: '1000',
};
// The exporter reads its variables from the environment, as in production.
Object.assign(process.env, env);
const config = loadConfig(env);
const logger = createLogger({ level: 'silent' });
const stores = await createStores({ url: 'memory://', sessionTtlMs: 600_000, logger });
const tracing = await startTracing(config, logger);
const off = await buildScout({ config, logger, stores });
const on = await buildScout({ config, logger, stores, ...tracing.instrument() });
llm.fallback = textReply(ANSWER, { pieces: 150 });

let turns = 0;
async function turn(scout: Scout): Promise<void> {
  turns += 1;
  for (const part of ['a', 'b'])
    llm.enqueue(toolCallReply([{ name: 'web_search', arguments: { query: `release ${turns}${part}` } }]));
  await scout.handleMessage(
    {
      channelId: 'slack:T1:C1',
      conversationId: `slack:T1:C1:${turns}.0`,
      messageId: `m${turns}`,
      userId: 'U1',
      userName: 'bench',
      text: 'What changed in the March release?',
    },
    new RecordingSink(),
  );
}

async function block(scout: Scout): Promise<number> {
  const before = process.cpuUsage();
  if (process.env.CONCURRENT) await Promise.all(Array.from({ length: BLOCK }, () => turn(scout)));
  else for (let i = 0; i < BLOCK; i++) await turn(scout);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / BLOCK;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
for (let i = 0; i < 10; i++) {
  await turn(off);
  await turn(on);
}
const cpu = { off: [] as number[], on: [] as number[] };
for (let i = 0; i < BLOCKS; i++) {
  // Alternating which side goes first, so a drift in the machine's load falls on both.
  for (const side of i % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const))
    cpu[side].push(await block(side === 'on' ? on : off));
}
const diffs = cpu.on.map((v, i) => v - (cpu.off[i] ?? Number.NaN));
const fmt = (xs: number[]) => xs.map((v) => v.toFixed(2)).join(' ');
console.log(
  `Node ${process.version}, ${BLOCKS} blocks of ${BLOCK} turns per side${process.env.CONCURRENT ? ' (concurrent)' : ''}, CPU ms per turn`,
);
console.log(`off: ${fmt(cpu.off)}\non:  ${fmt(cpu.on)}`);
console.log(
  `medians off ${median(cpu.off).toFixed(2)} / on ${median(cpu.on).toFixed(2)}; traces cost ${median(diffs).toFixed(2)} ms per turn (median of paired blocks)`,
);
await tracing.shutdown();
await Promise.all([off.shutdown(0), on.shutdown(0)]);
await stores.close();
await llm.close();
await search.close();
sink.kill();
