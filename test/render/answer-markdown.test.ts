/**
 * The Markdown every surface's answer messages show together: the answer, an error line, the footer.
 * A code block the model left open is closed once the answer is final, so what follows it does not
 * read as code and the messages end balanced.
 */
import { describe, expect, it } from 'vitest';
import { answerMarkdown } from '../../src/render/turn-markdown.js';
import { emptyView, type TurnView } from '../../src/render/view.js';
import { leavesFenceOpen } from './markdown-samples.js';

const footerLine = (footer: string) => `-# ${footer}`;

function view(answer: string, extra: Partial<TurnView> = {}): TurnView {
  return { ...emptyView(), answer, answerFinal: true, done: true, footer: 'model · 1.0 s', ...extra };
}

describe('answerMarkdown', () => {
  it('closes a code block the model left open, before the error line and the footer', () => {
    const text = answerMarkdown(
      view('Here:\n````python\nprint("never closed")', { error: 'The model stopped.' }),
      footerLine,
    );
    expect(text).toBe(
      'Here:\n````python\nprint("never closed")\n````\n\n⚠️ The model stopped.\n\n-# model · 1.0 s',
    );
    expect(leavesFenceOpen(text)).toBe(false);
  });

  it('leaves a balanced answer as it is, and a streaming one alone (the splitter handles its frontier)', () => {
    expect(answerMarkdown(view('```ts\nconst a = 1;\n```'), footerLine)).toBe(
      '```ts\nconst a = 1;\n```\n\n-# model · 1.0 s',
    );
    expect(answerMarkdown(view('```ts\nconst a', { done: false, answerFinal: false }))).toBe(
      '```ts\nconst a',
    );
  });
});
