/** Generated long answers for the splitter and LiveAnswer tests (deterministic). */

/** A small seeded PRNG (mulberry32) so failures reproduce. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS =
  'the quick brown fox jumps over lazy dogs while rust async runtimes schedule futures on executors'.split(
    ' ',
  );

function sentence(rand: () => number): string {
  const n = 6 + Math.floor(rand() * 14);
  const words = Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]!);
  if (rand() < 0.2)
    words.splice(
      2,
      0,
      `[source ${Math.floor(rand() * 9)}](https://example.com/a/${Math.floor(rand() * 1e6)}?q=x)`,
    );
  if (rand() < 0.1) words.splice(1, 0, '`inline_code()`');
  const text = words.join(' ');
  return text[0]!.toUpperCase() + text.slice(1) + '.';
}

function paragraph(rand: () => number): string {
  return Array.from({ length: 2 + Math.floor(rand() * 6) }, () => sentence(rand)).join(' ');
}

export function codeBlock(rand: () => number, lines: number, lang = 'ts'): string {
  const body = Array.from(
    { length: lines },
    (_, i) => `  const value${i} = compute(${i}, "${'x'.repeat(Math.floor(rand() * 30))}");`,
  );
  return ['```' + lang, ...body, '```'].join('\n');
}

/** A long answer: headings, paragraphs, lists and code blocks that each fit in `maxBlock` chars. */
export function longAnswer(
  targetChars: number,
  seed = 1,
  maxCodeLines = 30,
): { text: string; codeBlocks: string[] } {
  const rand = prng(seed);
  const blocks: string[] = [];
  const codeBlocks: string[] = [];
  let length = 0;
  let section = 1;
  while (length < targetChars) {
    const r = rand();
    let block: string;
    if (r < 0.1) block = `## Section ${section++}`;
    else if (r < 0.3) {
      block = Array.from({ length: 2 + Math.floor(rand() * 5) }, (_, i) =>
        rand() < 0.5 ? `- ${sentence(rand)}` : `${i + 1}. ${sentence(rand)}`,
      ).join('\n');
    } else if (r < 0.45) {
      block = codeBlock(rand, 3 + Math.floor(rand() * maxCodeLines), rand() < 0.5 ? 'ts' : 'python');
      codeBlocks.push(block);
    } else block = paragraph(rand);
    blocks.push(block);
    length += block.length + 2;
  }
  return { text: blocks.join('\n\n'), codeBlocks };
}

/** What must survive a split: everything but fence lines and whitespace. */
export function contentOf(markdown: string): string {
  return markdown
    .split('\n')
    .filter((line) => !/^\s*(```|~~~)/.test(line))
    .join('')
    .replace(/\s+/g, '');
}

/** Fence lines in a part: an even number means every opened block is closed. */
export function fenceLines(markdown: string): number {
  return markdown.split('\n').filter((line) => /^\s*```/.test(line)).length;
}

/**
 * True when a code fence is left open at the end (CommonMark rules, written independently of the
 * splitter's scanner: a closer repeats the opener's character at least as often, with no info string).
 */
export function leavesFenceOpen(markdown: string): boolean {
  let open: { char: string; length: number } | null = null;
  for (const line of markdown.split('\n')) {
    const match = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (!match) continue;
    const run = match[1]!;
    const rest = match[2]!;
    if (open === null) {
      if (run[0] === '`' && rest.includes('`')) continue; // not an opener
      open = { char: run[0]!, length: run.length };
    } else if (run[0] === open.char && run.length >= open.length && rest.trim() === '') {
      open = null;
    }
  }
  return open !== null;
}

/** A long agent answer citing sources 1–3 in turn, with one code block (the 429 storm tests). */
export function longCitedAnswer(paragraphs: number): string {
  const parts: string[] = [];
  for (let i = 0; i < paragraphs; i++) {
    parts.push(
      `Paragraph ${i}: Scout keeps answers whole under load [${(i % 3) + 1}]. ${'filler text '.repeat(6)}`,
    );
    if (i === 30) parts.push('```ts\nconst storm = 30;\nfor (let i = 0; i < storm; i++) retry();\n```');
  }
  return parts.join('\n\n');
}
