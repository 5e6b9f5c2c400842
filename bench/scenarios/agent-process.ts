/**
 * Scenario 11: agent turns in Scout's own process, measured from outside as scenario 6 measures chat
 * turns (CPU from /proc over the turns, Slack calls, peak RSS, last token → final message). One agent
 * turn = 2 tool decisions + 2 searches + the streamed answer, on the same fakes as scenario 6.
 * `--agent-mode=chat` runs chat turns instead (an A/B of two builds on scenario 6's turn).
 *
 * `--agent-baseline=<checkout>/dist/src/main.js` runs an older compiled Scout the same way, in turns
 * with the current build (current, baseline, current, baseline … one fresh process each), so both
 * see the same machine load; the table shows both and their CPU ratio. Issue 19's target (agent turn
 * CPU ≤ 0.6× the state it was filed against) is measured this way.
 */
import { ensureBuilt } from '../bot-process.js';
import { type BenchContext, fakeSpeed, mib, ms, type ScenarioResult, type TargetCheck } from '../context.js';
import { summarize } from '../metrics.js';
import { type LevelRun, ratio, runLevel, x } from './peer.js';

type Build = 'current' | 'baseline';

export async function agentProcess(ctx: BenchContext): Promise<ScenarioResult> {
  const { options, fakes } = ctx;
  ensureBuilt();
  const speed = fakeSpeed(options, options.peerHeadlineTokensPerSecond);
  await fakes.configure({ ...speed, speed: { ...speed.speed, answerTokens: options.peerAnswerTokens } });
  const mode = options.agentMode === 'chat' ? 'chat' : 'agent';
  const builds: Build[] = options.agentBaseline ? ['current', 'baseline'] : ['current'];
  const rows: Array<[string, string]> = [];
  const targets: TargetCheck[] = [];
  const levels: Array<{ level: number; runs: Record<Build, LevelRun[]> }> = [];
  try {
    for (const level of options.agentConcurrency) {
      const runs: Record<Build, LevelRun[]> = { current: [], baseline: [] };
      for (let round = 1; round <= options.agentRounds; round++) {
        for (const build of builds) {
          ctx.log(`  [11] ${build} build: ${level} concurrent ${mode} turns (round ${round})`);
          const entry = build === 'baseline' ? options.agentBaseline : undefined;
          runs[build].push(await runLevel(ctx, 'scout', level, { mode, entry }));
        }
      }
      levels.push({ level, runs });
      const cpu = (b: Build) => runs[b].map((r) => r.cpuPerTurnMs);
      const median = (b: Build) => summarize(cpu(b)).p50;
      for (const build of builds) {
        const r = runs[build];
        const all = r.map((run) => run.lastTokenToFinalMs.p95);
        rows.push(
          [`N=${level} ${build}: errors`, r.map((run) => run.errors).join(' / ')],
          [
            `N=${level} ${build}: CPU per turn (each round)`,
            cpu(build)
              .map((v) => ms(v))
              .join(' / '),
          ],
          [
            `N=${level} ${build}: Slack calls per turn`,
            r.map((run) => run.slackCallsPerTurn.toFixed(1)).join(' / '),
          ],
          [`N=${level} ${build}: peak RSS`, r.map((run) => mib(run.peakRssBytes)).join(' / ')],
          [`N=${level} ${build}: last token → final p95`, all.map((v) => ms(v, 0)).join(' / ')],
        );
      }
      if (options.agentBaseline) {
        const cpuRatio = ratio(median('current'), median('baseline'));
        rows.push([`N=${level} CPU per turn, current / baseline (medians)`, x(cpuRatio)]);
        if (level === 50 && mode === 'agent')
          targets.push({
            target: 'agent turn at 50 concurrent: CPU per turn ≤ 0.6× the baseline build',
            measured: x(cpuRatio),
            met: cpuRatio <= 0.6,
          });
      }
    }
  } finally {
    await fakes.configure(fakeSpeed(options, options.tokensPerSecond));
  }
  return {
    id: 11,
    name: `${mode === 'agent' ? 'Agent' : 'Chat'} turns in their own process (current vs a baseline build)`,
    rows,
    targets,
    data: { levels },
  };
}
