/**
 * The scripted turns of the conformance suite (issue 13): what the model and search answer, what
 * the platform does (storms, refusals), what the user presses. Each runs on every driver that has
 * the capabilities it `needs`; conformance.test.ts asserts the shared properties on all of them.
 */
import type { Locale } from '../../src/surface.js';
import { textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { codeBlock, prng } from '../render/markdown-samples.js';
import type { Capability, SeenMessage, SurfaceWorld, WriteMethod } from './surface-driver.js';

export interface ScriptedTurn {
  name: string;
  env?: Record<string, string>;
  locale?: Locale;
  needs?: Capability[];
  /** Scripts the LLM and search servers, and the platform (storms, refusals), before the turn. */
  setup(world: SurfaceWorld): void;
  /** The user's message (default a question that makes the agent search). */
  prompt?: string;
  /** The turn is a command answered privately to the asker, not an answer in the conversation. */
  privateReply?: boolean;
  /** What the user does while the turn runs (press Stop, Run, Cancel). */
  act?(world: SurfaceWorld, classified: () => Classified): Promise<void>;
  /** The answer shows References (its citations matched sources). */
  references: boolean;
  /** The turn ends with an answer the user can rate (👍/👎 on its last part). */
  feedback: boolean;
  /** The turn's writes reach the conversation (false: the platform refuses them). */
  delivered?: boolean;
  /** Extra checks of this turn. */
  check?(world: SurfaceWorld, classified: Classified): void | Promise<void>;
}

/** The conversation's messages sorted into the steps message, plan parts and answer parts. */
export interface Classified {
  steps: SeenMessage[];
  plan: SeenMessage[];
  answer: SeenMessage[];
  all: SeenMessage[];
}

/**
 * A run of content messages from one starting with 📋 up to the one carrying the plan's buttons (or
 * its outcome) is the plan; every other content message is the answer.
 */
export function classify(messages: SeenMessage[], planEnd: (m: SeenMessage) => boolean): Classified {
  const out: Classified = { steps: [], plan: [], answer: [], all: messages };
  let inPlan = false;
  for (const m of messages) {
    if (m.kind === 'steps') {
      out.steps.push(m);
      continue;
    }
    if (!inPlan && m.text.trimStart().startsWith('📋')) inPlan = true;
    if (inPlan) {
      out.plan.push(m);
      if (m.controls.includes('run') || m.controls.includes('cancel') || planEnd(m)) inPlan = false;
      continue;
    }
    out.answer.push(m);
  }
  return out;
}

/**
 * The agent's tool phase: one search, then the tool model says it has enough. The answer model's
 * call then takes the `fallback` (the long answer), streamed once.
 */
const SEARCH = [
  toolCallReply([{ name: 'web_search', arguments: { query: 'scout conformance' } }]),
  textReply('I have what I need.'),
];

/** A table the answer cites (Discord shows it as a code block). */
function table(rand: () => number, n: number): string {
  const rows = Array.from(
    { length: 3 },
    (_, i) => `| row ${n}.${i} | ${Math.floor(rand() * 1000)} | value ${i} [${(i % 3) + 1}] |`,
  );
  return ['| Name | Count | Note |', '| --- | ---: | --- |', ...rows].join('\n');
}

/**
 * A long cited answer of about `chars` characters: headings, paragraphs citing sources 1–3, lists,
 * code blocks and tables, each block numbered so a lost or repeated block shows in the diff.
 */
export function citedAnswer(chars: number, seed = 7, zh = false): string {
  const rand = prng(seed);
  const blocks: string[] = [];
  let length = 0;
  for (let i = 0; length < chars; i++) {
    const r = rand();
    let block: string;
    if (i % 9 === 0) block = `## ${zh ? '第' : 'Section '}${i / 9 + 1}${zh ? '节' : ''}`;
    else if (r < 0.15) block = codeBlock(rand, 4 + Math.floor(rand() * 20), rand() < 0.5 ? 'ts' : 'python');
    else if (r < 0.25) block = table(rand, i);
    else if (r < 0.4)
      block = Array.from({ length: 3 }, (_, k) => `- Item ${i}.${k} cites a source [${(k % 3) + 1}].`).join(
        '\n',
      );
    else
      block = zh
        ? `第 ${i} 段：Scout 在负载下保持回答完整 [${(i % 3) + 1}]。${'这是一段用于测试的中文填充文字，'.repeat(4 + Math.floor(rand() * 6))}`
        : `Block ${i}: Scout keeps answers whole under load [${(i % 3) + 1}]. ${'Filler text to make the paragraph long enough. '.repeat(2 + Math.floor(rand() * 8))}`;
    blocks.push(block);
    length += block.length + 2;
  }
  return blocks.join('\n\n');
}

/** An answer streamed in many pieces, so the surface really sees the text grow. */
function streamed(text: string, chunkDelayMs = 1) {
  return textReply(text, { pieces: Math.max(3, Math.ceil(text.length / 400)), chunkDelayMs });
}

function agentTurn(name: string, chars: number, extra: Partial<ScriptedTurn> = {}): ScriptedTurn {
  return {
    name,
    env: { DEFAULT_MODE: 'agent' },
    references: true,
    feedback: true,
    setup(world) {
      world.llm.enqueue(...SEARCH);
      world.llm.fallback = () => streamed(citedAnswer(chars));
    },
    ...extra,
  };
}

/**
 * An answer citing sources that do not exist ([9]): the core removes those markers, so the final
 * text (~7k) is ~6k characters shorter than what streamed (~13k) and needs fewer messages on every
 * surface (Slack 2 → 1, Discord 7 → 4): the surplus messages are deleted.
 */
/** What the shrinking turn's final rewrite makes one sentence of, in every paragraph. */
const SHRINKS = 'Words that stay. '.repeat(10);

export function shrinkingAnswer(): string {
  const parts: string[] = [];
  for (let i = 0; i < 60; i++)
    parts.push(`Paragraph ${i} cites real [1] and missing sources${' [9]'.repeat(25)}. ${SHRINKS}`);
  return parts.join('\n\n');
}

/** A plan of ten steps with long descriptions (the model's JSON). */
export function longPlan(): string {
  const steps = Array.from({ length: 10 }, (_, i) => ({
    step: i + 1,
    description: `Step ${i + 1} looks into part ${i + 1} of the question in depth: ${'it searches the web for recent, reliable sources and compares what they say. '.repeat(5)}End of step ${i + 1}.`,
    tool: 'web_search',
    parameters: { query: `plan query ${i + 1}` },
  }));
  return JSON.stringify({ steps });
}

/** Waits for a message carrying `control`, and returns it. */
async function messageWith(
  world: SurfaceWorld,
  classified: () => Classified,
  control: 'stop' | 'run' | 'cancel',
  also: (c: Classified) => boolean = () => true,
): Promise<SeenMessage> {
  let found: SeenMessage | undefined;
  await world.waitFor(
    () => {
      const c = classified();
      found = c.all.find((m) => m.controls.includes(control));
      return found !== undefined && also(c);
    },
    `a message with ${control}`,
    20_000,
  );
  return found!;
}

function planTurn(choice: 'run' | 'cancel'): ScriptedTurn {
  return {
    name: `10-step plan with long descriptions, then ${choice === 'run' ? 'Run' : 'Cancel'}`,
    env: { DEFAULT_MODE: 'plan' },
    needs: ['plan-buttons'],
    references: choice === 'run',
    feedback: choice === 'run',
    setup(world) {
      world.llm.enqueue(textReply(longPlan()));
      world.llm.fallback = () => streamed(citedAnswer(3_000, 3));
    },
    async act(world, classified) {
      const last = await messageWith(world, classified, 'run');
      const c = classified();
      // The plan is shown whole before anyone chooses: every step, every description, in order.
      const shown = c.plan.map((m) => m.text).join('\n');
      for (let i = 1; i <= 10; i++) {
        if (!shown.includes(`End of step ${i}.`)) throw new Error(`plan step ${i} is not shown whole`);
      }
      // Run / Cancel on the plan's last part only.
      const withButtons = c.all.filter((m) => m.controls.includes('run') || m.controls.includes('cancel'));
      if (withButtons.length !== 1 || withButtons[0]!.id !== c.plan.at(-1)!.id)
        throw new Error('Run / Cancel must be on the last plan part only');
      await world.press(choice, last);
    },
    check(_world, c) {
      if (c.plan.length === 0) throw new Error('no plan shown');
      for (let i = 1; i <= 10; i++)
        if (
          !c.plan
            .map((m) => m.text)
            .join('\n')
            .includes(`End of step ${i}.`)
        )
          throw new Error(`plan step ${i} is missing after the choice`);
      if (choice === 'cancel' && c.answer.some((m) => m.text.includes('Block')))
        throw new Error('a cancelled plan answered anyway');
    },
  };
}

function stormTurn(method: WriteMethod, base: ScriptedTurn): ScriptedTurn {
  return {
    ...base,
    name: `30 × 429 on ${method}: ${base.name}`,
    needs: [...(base.needs ?? []), `storm:${method}`],
    setup(world) {
      base.setup(world);
      world.rateLimit(method, 30);
    },
    async check(world, c) {
      await base.check?.(world, c);
      const limited = world.calls().filter((call) => call.method === method && call.status === 429);
      if (limited.length !== 30)
        throw new Error(`expected 30 rate-limited ${method} calls, saw ${limited.length}`);
    },
  };
}

const shrinking: ScriptedTurn = {
  name: 'a final text shorter than what streamed',
  env: { DEFAULT_MODE: 'agent' },
  // The final text differs from what streamed far above its end.
  needs: ['edit-scrolled-text'],
  references: true,
  feedback: true,
  setup(world) {
    world.llm.enqueue(...SEARCH);
    // Slow enough that every streamed part is posted under the channel's pace before the final
    // arrives (a part still waiting to be posted when the text shrinks is simply never posted).
    world.llm.fallback = () => streamed(shrinkingAnswer(), 10);
    // The unknown markers go as the text streams (citations are linked live), so what streamed is
    // the final's beginning: the core rewrites the final text instead, shorter from its first
    // paragraph on, as a final that rewrote what streamed would be.
    world.rewriteFinal((view) => ({ ...view, answer: view.answer.replaceAll(SHRINKS, 'Words that stay. ') }));
  },
};

const failingEphemeral: ScriptedTurn = {
  name: 'a private reply whose ephemeral fails never goes public',
  needs: ['failing-ephemeral'],
  privateReply: true,
  references: false,
  feedback: false,
  setup(world) {
    world.failEphemeral();
  },
};

export const TURNS: ScriptedTurn[] = [
  agentTurn('cited answer of 5k chars with code blocks and tables', 5_000),
  agentTurn('cited answer of 15k chars with code blocks and tables', 15_000),
  agentTurn('cited answer of 40k chars with code blocks and tables', 40_000),
  shrinking,
  {
    // Issue 27 point 10: References used to land inside the open code block (plain code, no links).
    name: 'an answer that ends inside an unclosed code fence',
    env: { DEFAULT_MODE: 'agent' },
    references: true,
    feedback: true,
    setup(world) {
      world.llm.enqueue(...SEARCH);
      world.llm.fallback = () =>
        streamed('Install it as the docs say [1]:\n\n```sh\nnpm install scout\nnpm start');
    },
    check(_world, c) {
      const last = c.answer.at(-1)?.text ?? '';
      const at = last.indexOf('References');
      if (at < 0) throw new Error(`no References in the last answer part: ${last}`);
      const fences = (last.slice(0, at).match(/```/g) ?? []).length;
      if (fences % 2 !== 0) throw new Error(`References inside a code block: ${last}`);
    },
  },
  {
    name: 'a failed search',
    env: { DEFAULT_MODE: 'agent' },
    references: false,
    feedback: true,
    setup(world) {
      world.search.failWith = { status: 500 };
      world.llm.enqueue(...SEARCH);
      world.llm.fallback = () => streamed('Without search results I can only say this [1], and that [2].');
    },
    check(_world, c) {
      const steps = c.steps.map((m) => m.text).join('\n');
      if (/❌\s*❌/.test(steps)) throw new Error(`doubled failure icon: ${steps}`);
    },
  },
  {
    name: 'Stop mid-answer',
    env: { DEFAULT_MODE: 'agent' },
    needs: ['stop-button'],
    // What streamed before Stop is kept, its citations linked: with the References it cites.
    references: true,
    feedback: false,
    setup(world) {
      world.llm.enqueue(...SEARCH);
      world.llm.fallback = () => textReply(citedAnswer(6_000, 11), { pieces: 200, chunkDelayMs: 15 });
    },
    async act(world, classified) {
      const stop = await messageWith(world, classified, 'stop', (c) =>
        c.answer.some((m) => m.text.length > 200),
      );
      await world.press('stop', stop);
    },
    check(world) {
      if (!world.finalView?.cancelled && !world.finalView?.error)
        throw new Error('Stop did not end the turn as cancelled');
    },
  },
  planTurn('run'),
  planTurn('cancel'),
  {
    ...agentTurn('Chinese locale: a cited answer', 0),
    locale: 'zh',
    setup(world) {
      world.llm.enqueue(...SEARCH);
      world.llm.fallback = () => streamed(citedAnswer(5_000, 5, true));
    },
    check(_world, c) {
      const answer = c.answer.map((m) => m.text).join('\n');
      if (!answer.includes('参考文献') || answer.includes('References'))
        throw new Error('the References heading is not in Chinese');
    },
  },
  {
    name: 'model text with mentions, broadcasts and unbalanced Markdown never pings',
    env: { DEFAULT_MODE: 'chat' },
    references: false,
    feedback: true,
    setup(world) {
      world.llm.fallback = () =>
        streamed(
          [
            'Hey @everyone and @here, <!channel> <!here> <@U00FAKEUSER1> <@&123456789012345678> <@123456789012345678>.',
            '**unclosed bold and `unclosed code',
            '```js',
            'const open = "fence never closed";',
            ...Array.from({ length: 80 }, (_, i) => `line ${i} @everyone <!subteam^S123>`),
          ].join('\n'),
        );
    },
  },
  {
    name: 'a channel the bot cannot post in',
    env: { DEFAULT_MODE: 'agent' },
    needs: ['refusal'],
    references: false,
    feedback: false,
    delivered: false,
    setup(world) {
      world.refuseConversation();
      world.llm.enqueue(...SEARCH);
      world.llm.fallback = () => streamed(citedAnswer(8_000));
    },
  },
  failingEphemeral,
  stormTurn('post', agentTurn('cited answer of 15k chars', 15_000)),
  stormTurn('edit', agentTurn('cited answer of 15k chars', 15_000)),
  stormTurn('delete', shrinking),
  stormTurn('stream', agentTurn('cited answer of 15k chars', 15_000)),
  stormTurn('ephemeral', {
    ...failingEphemeral,
    name: 'a private reply',
    needs: ['private-replies'],
    setup: () => {},
  }),
];
