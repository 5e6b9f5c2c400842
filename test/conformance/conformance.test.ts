/**
 * The cross-surface conformance suite (issue 13): every scripted turn of turns.ts runs on every
 * driver (surface-driver.ts says how to add one) and must show the same things everywhere: the
 * messages together equal the final answer (nothing lost or repeated, no raw [n], fences balanced),
 * References when sources were cited, controls on the last live message only, every call within the
 * platform's limits, and nobody pinged.
 */
import { afterEach, expect, it } from 'vitest';
import { t } from '../../src/i18n/translate.js';
import { answerMarkdown } from '../../src/render/turn-markdown.js';
import { describeWithShared } from '../helpers/fixtures.js';
import { contentOf, leavesFenceOpen } from '../render/markdown-samples.js';
import { consoleDriver, consoleTtyDriver } from './console-driver.js';
import { discordDriver } from './discord-driver.js';
import { slackClassicDriver } from './slack-classic-driver.js';
import { slackNativeDriver } from './slack-native-driver.js';
import type { SurfaceDriver, SurfaceWorld } from './surface-driver.js';
import { type Classified, classify, type ScriptedTurn, TURNS } from './turns.js';

export const DRIVERS: SurfaceDriver[] = [
  slackClassicDriver,
  slackNativeDriver,
  discordDriver,
  consoleDriver,
  consoleTtyDriver,
];

/**
 * Defects the suite found and that are not fixed yet, as `driver: turn` → what is wrong. These run
 * as `it.fails`: once fixed the test passes, `it.fails` reports it, and the entry must go.
 */
const KNOWN_DEFECTS: Record<string, string> = {};

/** A `[n]` citation marker that is not part of a link. */
const RAW_CITATION = /(?<![[\\])\[\d+\](?![\](])/;

/** What must survive: every character but whitespace and the zero-width spaces that defuse mentions. */
const content = (markdown: string) => contentOf(markdown).replace(/\u200B/g, '');

function classified(world: SurfaceWorld, locale: 'en' | 'zh'): Classified {
  const outcomes = [t(locale, 'plan.running'), t(locale, 'plan.cancelled')];
  return classify(world.messages(), (m) => outcomes.some((o) => m.text.includes(o)));
}

async function assertConformance(
  world: SurfaceWorld,
  turn: ScriptedTurn,
  driver: SurfaceDriver,
): Promise<void> {
  const locale = turn.locale ?? 'en';
  const c = classified(world, locale);
  expect(world.violations(), 'calls over a platform limit').toEqual([]);
  expect(world.pings(), 'pings').toEqual([]);
  // Nothing live is left: no Stop, no Run / Cancel on a finished turn.
  for (const m of c.all) expect(m.controls, `controls of ${m.kind} ${m.id}`).not.toContain('stop');
  for (const m of c.all) expect(m.controls).not.toContain('run');

  if (turn.privateReply) {
    expect(world.calls().filter((call) => call.inConversation && call.method !== 'ephemeral')).toEqual([]);
    expect(world.privateNotices().length, 'the private reply reached the asker').toBeGreaterThan(0);
    return;
  }
  if (turn.delivered === false) {
    // Writes stop at the first refusal: the steps message and the first answer part may race to it.
    const refused = world.calls().filter((call) => call.inConversation && call.status >= 400);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length).toBeLessThanOrEqual(2);
    expect(c.all).toEqual([]);
    expect(world.privateNotices(), 'the asker is told privately, once').toHaveLength(1);
    return;
  }

  const view = world.finalView;
  expect(view, 'the turn ended').toBeDefined();
  const expected = answerMarkdown(view!);
  const shown = c.answer.map((m) => m.text).join('\n');
  const rendered = world.rendered ? world.rendered(expected) : expected;
  expect(content(shown), 'the messages together equal the final answer').toBe(content(rendered));
  for (const m of c.answer) expect(leavesFenceOpen(m.text), `fence left open in ${m.id}`).toBe(false);
  for (const m of c.answer) expect(m.text.length).toBeLessThanOrEqual(world.answerChars);
  // Where links show as `[n]` (the terminal), a raw marker is a difference from the rendered answer.
  if (!world.rendered) expect(shown, 'a raw [n] citation').not.toMatch(RAW_CITATION);
  if (turn.references) expect(shown).toContain(t(locale, 'answer.references'));
  else expect(shown).not.toContain(t(locale, 'answer.references'));
  // 👍/👎 on the last answer message only.
  const rated = c.all.filter((m) => m.controls.includes('feedback'));
  const rateable = turn.feedback && !driver.lacks.has('feedback-buttons');
  expect(rated.map((m) => m.id)).toEqual(rateable ? [c.answer.at(-1)!.id] : []);
  await turn.check?.(world, c);
}

describeWithShared('conformance: the same turns on every surface', () => {
  let world: SurfaceWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  for (const driver of DRIVERS) {
    for (const turn of TURNS) {
      const missing = (turn.needs ?? []).filter((need) => driver.lacks.has(need));
      const name = `${driver.name}: ${turn.name}`;
      if (missing.length > 0) {
        it.skip(`${name} (the surface lacks ${missing.join(', ')})`, () => {});
        continue;
      }
      const run = KNOWN_DEFECTS[name] ? it.fails : it;
      run(
        KNOWN_DEFECTS[name] ? `${name} — known defect: ${KNOWN_DEFECTS[name]}` : name,
        async () => {
          world = await driver.start({
            ...(turn.env ? { env: turn.env } : {}),
            ...(turn.locale ? { locale: turn.locale } : {}),
          });
          const w = world;
          turn.setup(w);
          if (turn.privateReply) await w.privateCommand();
          else await w.ask(turn.prompt ?? 'what is new with scout?');
          await turn.act?.(w, () => classified(w, turn.locale ?? 'en'));
          await w.settled();
          await assertConformance(w, turn, driver);
        },
        60_000,
      );
    }
  }
});
