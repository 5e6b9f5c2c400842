import { startFakesHandle } from '/work/main/bench/fakes/fakes-client.js';
import { fakeSpeed } from '/work/main/bench/context.js';
import { parseOptions } from '/work/main/bench/options.js';
import { startBenchScout } from '/work/main/bench/harness.js';
import { warmUp } from '/work/main/bench/turns.js';
const options = parseOptions([]);
const native = process.env.NATIVE !== 'false';
const fakes = await startFakesHandle(fakeSpeed(options, options.tokensPerSecond), true);
const bench = await startBenchScout({ fakes, storeUrl: 'memory://', searches: 2, nativeStreaming: native });
await warmUp(bench);
await fakes.reset();
const r = await bench.startTurn('bench-tx-1', 7);
await r.ended;
const snap = await fakes.snapshot();
const t0 = r.postedAt;
const ev: [number, string][] = [];
for (const l of snap.llm) { ev.push([l.start - t0, `llm ${l.kind} start`]); if (l.firstContent) ev.push([l.firstContent - t0, `llm first content`]); ev.push([l.end - t0, `llm ${l.kind} end`]); }
for (const s of snap.search) { ev.push([s.start - t0, 'search start']); ev.push([s.end - t0, 'search end']); }
for (const c of snap.slack) ev.push([c.at - t0, `slack ${c.method} ${c.message ?? ''} ans=${c.hasAnswer} end=${c.hasEnd}`]);
ev.push([r.endedAt! - t0, 'TURN END']);
ev.sort((a, b) => a[0] - b[0]);
for (const [t, e] of ev) console.log(t.toFixed(1).padStart(8), e);
await bench.close(); await fakes.close();
