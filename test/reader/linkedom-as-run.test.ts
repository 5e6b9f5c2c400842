/**
 * linkedom as Scout runs it (patches/linkedom+0.18.15.patch, applied by npm ci's postinstall): the
 * same DOM as linkedom as published — every fixture page parses and reads the same, events, class
 * names and tag names answer the same — at a fraction of the memory per node. The memory test is the
 * one that fails when the patch is not applied (an install that skipped the postinstall).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { parseHTML as parsePublished } from 'linkedom-published';
import { describe, expect, it } from 'vitest';
import { decodePage, webPageEntries } from './page-fixtures.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

type Parse = typeof parseHTML;

/** The part of an element's interface these tests use (the project compiles without the DOM lib). */
interface Element {
  tagName: string;
  nodeName: string;
  localName: string;
  className: string;
  outerHTML: string;
  classList: {
    add(token: string): void;
    remove(token: string): void;
    contains(token: string): boolean;
    length: number;
  };
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  hasAttribute(name: string): boolean;
  cloneNode(deep: boolean): Element;
  querySelectorAll(selector: string): ArrayLike<Element>;
  addEventListener(type: string, listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: string, listener: () => void): void;
  dispatchEvent(event: unknown): boolean;
}
interface Document extends Element {
  getElementById(id: string): Element;
  getElementsByClassName(name: string): ArrayLike<Element>;
  defaultView: { Event: new (type: string, init?: { bubbles?: boolean }) => unknown };
}

/** The fixture corpus's web pages, decoded. */
function fixturePages(): string[] {
  return webPageEntries().map((page) => decodePage(page));
}

/** What a page parses to and what Readability reads from it. */
function readWith(parse: Parse, html: string) {
  const parsed = String(parse(html).document.documentElement?.outerHTML ?? '');
  const { document } = parse(html);
  const article = new Readability(document as never).parse();
  return {
    parsed,
    article: article && {
      title: article.title,
      byline: article.byline,
      content: article.content,
      text: article.textContent,
    },
  };
}

/** Class names, tag names and events as a caller sees them, on one DOM. */
function domAnswers(parse: Parse) {
  const document = parse(
    '<html><body><div id="d" class="  card card  big&#9;"><P CLASS="x">one</P><svg><circle class="dot"/></svg><my-box class="a b">two</my-box><p>three</p></div></body></html>',
  ).document as unknown as Document;
  const div = document.getElementById('d');
  const paragraphs = Array.from(document.querySelectorAll('p'));
  const answers: unknown[] = [
    div.className,
    div.getAttribute('class'),
    div.outerHTML,
    Array.from(div.querySelectorAll('*')).map((e) => [e.tagName, e.nodeName, e.localName]),
    paragraphs.map((p) => [p.className, p.getAttribute('class'), p.hasAttribute('class')]),
    document.querySelectorAll('.card.big').length,
    document.getElementsByClassName('dot').length,
  ];
  div.classList.add('wide');
  div.classList.remove('card');
  answers.push(div.className, div.getAttribute('class'), div.classList.contains('big'));
  div.setAttribute('class', ' lean  lean ');
  answers.push(div.className, div.classList.length, div.outerHTML);
  div.removeAttribute('class');
  answers.push(div.className, div.getAttribute('class'), div.hasAttribute('class'));
  (paragraphs[1] as Element).className = 'made';
  answers.push(document.querySelectorAll('.made').length, paragraphs[1]?.outerHTML);
  const copy = div.cloneNode(true);
  answers.push(copy.outerHTML === div.outerHTML);
  // Events: listeners on an element and the document, bubbling, once, removal.
  const heard: string[] = [];
  const onP = () => heard.push('p');
  paragraphs[0]?.addEventListener('ping', onP);
  paragraphs[0]?.addEventListener('ping', () => heard.push('p-once'), { once: true });
  document.addEventListener('ping', () => heard.push('document'));
  const { Event } = document.defaultView;
  paragraphs[0]?.dispatchEvent(new Event('ping', { bubbles: true }));
  paragraphs[0]?.dispatchEvent(new Event('ping', { bubbles: true }));
  paragraphs[0]?.removeEventListener('ping', onP);
  paragraphs[0]?.dispatchEvent(new Event('ping', { bubbles: true }));
  paragraphs[1]?.removeEventListener('ping', onP); // a node that never had a listener
  paragraphs[1]?.dispatchEvent(new Event('ping'));
  answers.push(heard);
  return answers;
}

/** Heap a parsed page of 5,000 blocks holds, in MB, with the given linkedom (a fresh process). */
function heldMegabytes(module: 'linkedom' | 'linkedom-published'): number {
  const script = `
    const { parseHTML } = await import(${JSON.stringify(module)});
    const html = '<html><body>' + '<div class="a b"><p class="x">text <a href="#">link</a></p></div>\\n'.repeat(5000) + '</body></html>';
    gc(); const before = process.memoryUsage().heapUsed;
    const { document } = parseHTML(html);
    gc(); const after = process.memoryUsage().heapUsed;
    if (document.querySelectorAll('p').length !== 5000) throw new Error('not parsed');
    console.log((after - before) / 1e6);`;
  const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  return Number(out.trim());
}

describe('linkedom as Scout runs it', () => {
  it('parses every fixture page as published linkedom does, and Readability reads the same article', () => {
    const pages = fixturePages();
    expect(pages.length).toBeGreaterThan(10);
    for (const html of pages) expect(readWith(parseHTML, html)).toEqual(readWith(parsePublished, html));
  });

  it('answers class names, tag names and events as published linkedom does', () => {
    const answers = domAnswers(parseHTML);
    expect(answers).toEqual(domAnswers(parsePublished));
    // What those answers are, so two equally wrong builds do not pass.
    expect(answers.slice(0, 2)).toEqual(['card big', 'card big']);
    expect(answers.at(-1)).toEqual(['p', 'p-once', 'document', 'p', 'document', 'document']);
  });

  it('holds a parsed page in under 60 % of the memory published linkedom holds it in', () => {
    const patched = heldMegabytes('linkedom');
    const published = heldMegabytes('linkedom-published');
    expect(published).toBeGreaterThan(5);
    expect(patched).toBeLessThan(published * 0.6);
  });
});
