/**
 * Bad input through every surface (issue 13, "Bad input"): model answers carrying mentions and
 * broadcast tokens, unpaired surrogates, a 100,000-character word, unbalanced Markdown and very long
 * code lines, streamed through the real core and each surface's real adapter against the strict
 * fakes. Every call stays within the platform's limits (the fakes refuse what the platform refuses,
 * unpaired surrogates included), nobody is pinged, no write fails, the turn ends in its final state
 * (👍/👎, no Stop), and the messages together show the final answer — modulo the documented
 * neutralisation: zero-width spaces that defuse mentions, and U+FFFD for an unpaired surrogate.
 */
import { afterEach, expect, it } from 'vitest';
import { answerMarkdown } from '../../src/render/turn-markdown.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { describeWithShared } from '../helpers/fixtures.js';
import { contentOf, leavesFenceOpen, prng } from '../render/markdown-samples.js';
import { consoleDriver, consoleTtyDriver } from './console-driver.js';
import { discordDriver } from './discord-driver.js';
import { slackClassicDriver } from './slack-classic-driver.js';
import { slackNativeDriver } from './slack-native-driver.js';
import type { SurfaceDriver, SurfaceWorld } from './surface-driver.js';
import { classify } from './turns.js';

const DRIVERS: SurfaceDriver[] = [
  slackClassicDriver,
  slackNativeDriver,
  discordDriver,
  consoleDriver,
  consoleTtyDriver,
];

/** Every way model text could ping on Slack or Discord. */
const PINGS = [
  '@everyone',
  '@here',
  '@channel',
  '<!channel>',
  '<!here>',
  '<!everyone>',
  '<!subteam^S0123ABC>',
  '<@U123ABC>',
  '<@W0123ABC>',
  '<@&123>',
  '<@&123456789012345678>',
  '<@123456789012345678>',
  '<@!123456789012345678>',
];

/** Written independently of the renderer: each unpaired surrogate becomes U+FFFD. */
function wellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** What must survive: every character but whitespace, fence lines and the zero-width spaces. */
const content = (markdown: string) => contentOf(markdown).replace(/\u200B/g, '');

/** A no-whitespace word of `length` mixing ASCII, emoji (surrogate pairs) and CJK, seeded. */
function longWord(length: number, seed: number): string {
  const rand = prng(seed);
  let out = '';
  while (out.length < length) {
    const r = rand();
    out += r < 0.1 ? '😀' : r < 0.15 ? '界' : String.fromCharCode(97 + Math.floor(rand() * 26));
  }
  return out;
}

interface BadInput {
  name: string;
  answer: string;
}

const CASES: BadInput[] = [
  {
    name: 'mentions and broadcast tokens, in prose, lists, tables, links and code',
    answer: Array.from({ length: 30 }, (_, i) =>
      [
        `Paragraph ${i}: hey ${PINGS.join(' and ')}, please read.${' Filler to spread the tokens over many messages.'.repeat(3)}`,
        `- item ${PINGS[i % PINGS.length]} in a list`,
        `| who | note |\n| --- | --- |\n| ${PINGS[(i + 3) % PINGS.length]} | ${PINGS[(i + 5) % PINGS.length]} |`,
        `A link [${PINGS[(i + 7) % PINGS.length]}](https://example.com/${i}) and \`${PINGS[(i + 9) % PINGS.length]}\`.`,
        i % 5 === 0 ? `\`\`\`\n${PINGS.join('\n')}\n\`\`\`` : '',
      ]
        .filter(Boolean)
        .join('\n\n'),
    ).join('\n\n'),
  },
  {
    name: 'unpaired surrogates: alone, mid-word, and where a message is cut',
    answer: [
      'A high surrogate alone: \uD83D and a low one alone: \uDE00.',
      'Mid-word: ab\uD83Dcd and ef\uDE00gh, reversed pair \uDE00\uD83D, and a real one 😀.',
      'Ends with a high surrogate \uD83D',
      // No whitespace: hard cuts fall inside this word on every surface, across pairs and halves.
      `${'x'.repeat(1_995)}\uD83D\uDE00\uD83D${'y'.repeat(4)}\uDE00${longWord(22_000, 3).replace(/界/g, '\uDE00')}`,
      'The end \uDE00',
    ].join('\n\n'),
  },
  {
    name: 'a 100,000-character word with no whitespace',
    answer: `Here it comes:\n\n${longWord(100_000, 1)}\n\nAnd that was it.`,
  },
  {
    name: 'unbalanced Markdown: an unclosed fence, unclosed ** and `',
    answer: [
      'Some **bold that never closes, and `code that never closes either.',
      '_italic without end and [a link without end](https://example.com',
      ...Array.from({ length: 40 }, (_, i) => `Paragraph ${i} ${'text '.repeat(40)}`),
      '```python',
      ...Array.from({ length: 300 }, (_, i) => `print("line ${i} of a block the model never closed")`),
    ].join('\n\n'),
  },
  {
    name: 'very long lines in a code block',
    answer: [
      'The file:',
      '```js',
      ...Array.from({ length: 8 }, (_, i) => `const line${i} = "${'a very long line '.repeat(500)}";`),
      '```',
      'and after the block, **done**.',
    ].join('\n'),
  },
];

/** A seeded mix of every hazard above, cut at random places (the property test). */
function mixedAnswer(seed: number): string {
  const rand = prng(seed);
  const pieces = [
    () => PINGS[Math.floor(rand() * PINGS.length)]!,
    () => (rand() < 0.5 ? '\uD83D' : '\uDE00'),
    () => '😀',
    () => longWord(Math.floor(rand() * 6_000), seed),
    // Fences as lines (an opener, a closer), left unbalanced as often as not.
    () => '\n```\n',
    () => '\n```ts\n',
    () => '**',
    // A lone backtick with a letter: runs of three would be fence-like lines the content check
    // reads as markup.
    () => '`x',
    () => '\n\n',
    () => '\n',
    () => 'plain words and more words. ',
    () => `${'x'.repeat(Math.floor(rand() * 3_000))}`,
  ];
  let out = '';
  while (out.length < 12_000) out += pieces[Math.floor(rand() * pieces.length)]!();
  return out;
}

const SEEDS = (process.env.BAD_INPUT_SEEDS ?? '11,12,13').split(',').map(Number);

async function assertBadInput(world: SurfaceWorld, driver: SurfaceDriver): Promise<void> {
  const c = classify(world.messages(), () => false);
  // Thrown whole: the assertion's diff would show a list of long strings as `[ …(4) ]`.
  const violations = world.violations();
  if (violations.length > 0)
    throw new Error(`calls over a platform limit or carrying broken text:\n${violations.join('\n')}`);
  const pings = world.pings();
  if (pings.length > 0) throw new Error(`pings:\n${pings.join('\n')}`);
  // Nothing failed: every write in the conversation was accepted.
  const failed = world.calls().filter((call) => call.inConversation && call.status >= 400);
  expect(failed, 'refused writes').toEqual([]);

  const view = world.finalView;
  expect(view, 'the turn ended').toBeDefined();
  expect(view!.error, 'the turn ended without an error').toBeFalsy();
  const expected = wellFormed(answerMarkdown(view!));
  const rendered = world.rendered ? world.rendered(expected) : expected;
  const shown = c.answer.map((m) => m.text).join('\n');
  expect(shown, 'unpaired surrogate shown').not.toMatch(
    /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
  );
  const [got, want] = [content(shown), content(rendered)];
  if (got !== want) {
    // The first difference, not 100k characters of diff.
    let at = 0;
    while (at < got.length && got[at] === want[at]) at++;
    expect(
      { at, got: got.slice(Math.max(0, at - 40), at + 40), length: got.length },
      'the messages together equal the final answer',
    ).toEqual({ at, got: want.slice(Math.max(0, at - 40), at + 40), length: want.length });
  }
  for (const m of c.answer) {
    expect(leavesFenceOpen(m.text), `fence left open in ${m.id}`).toBe(false);
    expect(m.text.length).toBeLessThanOrEqual(world.answerChars);
  }
  // The final state: no Stop anywhere, 👍/👎 on the last answer message only.
  for (const m of c.all) expect(m.controls, `controls of ${m.kind} ${m.id}`).not.toContain('stop');
  const rated = c.all.filter((m) => m.controls.includes('feedback')).map((m) => m.id);
  expect(rated).toEqual(driver.lacks.has('feedback-buttons') ? [] : [c.answer.at(-1)!.id]);
}

describeWithShared('bad input: rendered within limits, never pinging, never throwing', () => {
  let world: SurfaceWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  const inputs = [
    ...CASES,
    ...SEEDS.map((seed) => ({ name: `a seeded mix of all of it (seed ${seed})`, answer: mixedAnswer(seed) })),
  ];
  for (const driver of DRIVERS) {
    for (const input of inputs) {
      it(`${driver.name}: ${input.name}`, async () => {
        world = await driver.start({ env: { DEFAULT_MODE: 'chat' } });
        const w = world;
        // Streamed in pieces cut by character index: surrogate pairs split across chunks too.
        w.llm.fallback = () =>
          textReply(input.answer, {
            pieces: Math.max(3, Math.ceil(input.answer.length / 700)),
            chunkDelayMs: 1,
          });
        await w.ask('tell me something awkward');
        await w.settled();
        await assertBadInput(w, driver);
      }, 60_000);
    }
  }
});
