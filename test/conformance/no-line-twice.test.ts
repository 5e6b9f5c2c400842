/**
 * A long answer's lines never show in two messages at once (issue 27, point 11: while the final
 * text landed, up to 189 lines showed twice for 1–4 s on Slack and 26 of 80 for 3.6 s on Discord).
 * When the final text moves a line from one message to another — citations linked make lines
 * longer, sources that do not exist dropped make them shorter — the message that loses it must be
 * edited (or deleted) before the one that gains it.
 *
 * The real Slack (post + chat.update, and native streaming) and Discord surfaces run against their
 * strict fakes; after every write the fake answered, the driver's view of the thread is read, and no
 * line may be in two messages in any of those states. Every line carries a unique label, so a line
 * is recognised in any message whatever the rewrite did to the rest of it.
 */
import { afterEach, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { describeWithShared } from '../helpers/fixtures.js';
import { discordDriver } from './discord-driver.js';
import { slackClassicDriver } from './slack-classic-driver.js';
import { slackNativeDriver } from './slack-native-driver.js';
import type { SurfaceDriver, SurfaceWorld } from './surface-driver.js';

const SEARCH = [
  toolCallReply([{ name: 'web_search', arguments: { query: 'scout lines' } }]),
  textReply('I have what I need.'),
];

const LABEL = /\bL\d{4}\b/g;
const HAS_LABEL = /\bL\d{4}\b/;

/**
 * `lines` one-line paragraphs, each labelled, each citing a real source; `missing` markers of a
 * source that does not exist per line (the final text drops them: it is shorter than what streamed).
 */
function labelledAnswer(lines: number, missing: number, filler: number): string {
  return Array.from(
    { length: lines },
    (_, i) =>
      `L${String(i).padStart(4, '0')} cites [${(i % 3) + 1}]${' [9]'.repeat(missing)}. ${'Words that stay. '.repeat(filler)}`,
  ).join('\n\n');
}

interface Case {
  name: string;
  answer: () => string;
}

/** The answer shapes, sized per surface (Slack parts hold 10,000 characters, Discord's 2,000). */
function cases(answerChars: number): Case[] {
  const lines = Math.ceil((answerChars * 3.5) / 110);
  return [
    // Every marker becomes a link: each line grows, so boundaries move towards the start.
    { name: 'citations linked (the final text is longer)', answer: () => labelledAnswer(lines, 0, 5) },
    // Missing sources dropped: each line shrinks, so later lines move into earlier messages.
    {
      name: 'missing sources dropped (the final text is shorter)',
      answer: () => labelledAnswer(lines, 6, 3),
    },
  ];
}

const DRIVERS: SurfaceDriver[] = [slackClassicDriver, slackNativeDriver, discordDriver];

describeWithShared('no line shows in two messages at once', () => {
  let world: SurfaceWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  for (const driver of DRIVERS) {
    // The answer sizes depend on the surface's part size, known once a world is started: a probe.
    for (const index of [0, 1]) {
      it(`${driver.name}: ${index === 0 ? 'a final text that grows' : 'a final text that shrinks'}`, async () => {
        world = await driver.start({ env: { DEFAULT_MODE: 'agent' } });
        const shape = cases(world.answerChars)[index]!;
        const text = shape.answer();
        world.llm.enqueue(...SEARCH);
        world.llm.fallback = () =>
          textReply(text, { pieces: Math.max(3, Math.ceil(text.length / 400)), chunkDelayMs: 2 });

        // Every state the thread goes through: which messages show each label.
        const twice: string[] = [];
        let states = 0;
        const check = () => {
          states++;
          const where = new Map<string, string[]>();
          for (const message of world!.messages()) {
            for (const label of new Set(message.text.match(LABEL) ?? []))
              where.set(label, [...(where.get(label) ?? []), message.id]);
          }
          const doubled = [...where].filter(([, ids]) => ids.length > 1).map(([label]) => label);
          if (doubled.length > 0)
            twice.push(
              `state ${states}: ${doubled.length} lines in two messages (${doubled.slice(0, 3).join(', ')}…)`,
            );
        };
        const stop = world.watch!(check);
        try {
          await world.ask('Tell me a long story with sources');
          await world.settled();
        } finally {
          stop();
        }

        expect(twice.slice(0, 5), shape.name).toEqual([]);
        // The answer really spread over several messages and moved lines between them at the end.
        const shown = world.messages().filter((m) => HAS_LABEL.test(m.text));
        expect(shown.length, 'messages holding the answer').toBeGreaterThan(2);
        const labels = world
          .messages()
          .flatMap((m) => m.text.match(LABEL) ?? [])
          .sort();
        expect(labels).toEqual(text.match(LABEL)!.sort());
        expect(world.violations()).toEqual([]);
      });
    }
  }
});
