/**
 * Property test of the reconcile step, driven exactly as a turn drives it: the core calls update()
 * with the streamed text as it grows, then once with the final linked text, then done() (finish).
 * Thousands of random answers and final rewrites (longer, shorter, linked, rewritten); a strict fake
 * platform refuses payloads over the limit and writes to deleted messages. Seeded: a failure names
 * its seed; `SCOUT_FUZZ_SEED=<seed> SCOUT_FUZZ_RUNS=1` replays it.
 */
import { describe, expect, it } from 'vitest';
import { LiveAnswer } from '../../src/render/live-answer.js';
import { manualClock } from './manual-clock.js';
import { contentOf, leavesFenceOpen, longAnswer, prng } from './markdown-samples.js';

const BASE_SEED = Number(process.env.SCOUT_FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.SCOUT_FUZZ_RUNS ?? 1000);

function strictPlatform(maxChars: number) {
  const messages = new Map<number, string>();
  const deleted = new Set<number>();
  const refused: string[] = [];
  let nextRef = 1;
  const check = (payload: string) => {
    if (payload.length > maxChars) {
      refused.push(`payload of ${payload.length} > ${maxChars}`);
      throw new Error('too long');
    }
  };
  return {
    messages,
    refused,
    post: async (payload: string) => {
      await Promise.resolve();
      check(payload);
      const ref = nextRef++;
      messages.set(ref, payload);
      return ref;
    },
    edit: async (ref: number, payload: string) => {
      await Promise.resolve();
      if (deleted.has(ref)) {
        refused.push(`edit of deleted message ${ref}`);
        throw new Error('unknown message');
      }
      check(payload);
      messages.set(ref, payload);
    },
    remove: async (ref: number) => {
      await Promise.resolve();
      if (deleted.has(ref)) refused.push(`second delete of ${ref}`);
      deleted.add(ref);
      messages.delete(ref);
    },
    shown: () => [...messages.entries()].sort((a, b) => a[0] - b[0]),
  };
}

const CJK = '异步运行时调度未来任务。执行器负责轮询，直到完成！';

/** A raw streamed answer with `[n]` citation markers, and its final text. */
function scenario(rand: () => number, seed: number): { raw: string; final: string; maxChars: number } {
  const maxChars = [200, 400, 700, 2000][Math.floor(rand() * 4)]!;
  const { text } = longAnswer(50 + Math.floor(rand() * 6000), seed, 1 + Math.floor(rand() * 20));
  let raw = text.replace(/\. /g, () => (rand() < 0.3 ? ` [${1 + Math.floor(rand() * 9)}]. ` : '. '));
  if (rand() < 0.2) raw = raw.replace(/\n\n/, `\n\n${CJK.repeat(1 + Math.floor(rand() * 40))}\n\n`);
  if (rand() < 0.1) raw += `\n\n\`\`\`sh\n${'echo unbalanced\n'.repeat(Math.floor(rand() * 30))}`;
  if (rand() < 0.05) raw += `\n\nA long word: ${'x'.repeat(Math.floor(rand() * 3 * maxChars))}`;
  const linked = raw.replace(/\[(\d)\]/g, '[[$1]](https://example.com/source/$1)');
  const references = `\n\n**References**\n${Array.from({ length: 9 }, (_, i) => `${i + 1}. [Source ${i + 1}](https://example.com/source/${i + 1})`).join('\n')}`;
  const r = rand();
  let final: string;
  if (r < 0.45)
    final = linked + references; // the usual: citations linked, References appended
  else if (r < 0.6)
    final = linked.slice(0, Math.floor(rand() * linked.length)) + references; // shorter
  else if (r < 0.7)
    final = longAnswer(50 + Math.floor(rand() * 4000), seed + 1).text; // rewritten
  else if (r < 0.8)
    final = `${linked}\n\n${longAnswer(3000, seed + 2).text}${references}`; // longer
  else if (r < 0.9) final = 'Sorry, the answer was withdrawn.';
  else final = raw; // unchanged
  return { raw, final, maxChars };
}

async function runOne(seed: number): Promise<void> {
  const rand = prng(seed);
  const { raw, final, maxChars } = scenario(rand, seed);
  const clock = manualClock();
  const platform = strictPlatform(maxChars);
  const answer = new LiveAnswer<string, number>({
    post: platform.post,
    edit: platform.edit,
    remove: platform.remove,
    maxChars,
    intervalMs: 1000,
    clock,
    onError: () => {},
  });
  // Streaming: update() per chunk, the clock moving between some of them.
  for (let at = 0; at < raw.length; ) {
    at = Math.min(raw.length, at + 1 + Math.floor(rand() * 200));
    answer.set(raw.slice(0, at));
    if (rand() < 0.3) await clock.advance(Math.floor(rand() * 1500));
  }
  // The core's update() with the final linked text, then done().
  if (rand() < 0.8) {
    answer.set(final);
    if (rand() < 0.5) await clock.advance(Math.floor(rand() * 1500));
  }
  await clock.until(answer.finish(final));

  const where = `seed ${seed} (replay: SCOUT_FUZZ_SEED=${seed} SCOUT_FUZZ_RUNS=1)`;
  expect(platform.refused, where).toEqual([]);
  const shown = platform.shown();
  expect(
    shown.map(([ref]) => ref),
    where,
  ).toEqual(answer.refs);
  for (const [, text] of shown) {
    expect(text.length, where).toBeLessThanOrEqual(maxChars);
    expect(leavesFenceOpen(text), where).toBe(false);
  }
  expect(contentOf(shown.map(([, text]) => text).join('\n')), where).toBe(contentOf(final));
}

describe('LiveAnswer reconcile (property test)', () => {
  it(`lands the final text whatever it is, over ${RUNS} random turns`, async () => {
    for (let i = 0; i < RUNS; i++) await runOne(BASE_SEED + i);
  }, 120_000);
});
