/**
 * The selector-free lookups find exactly what linkedom's querySelectorAll, querySelector and closest
 * find, on every page of the fixture corpus and on a page with a `<template>`.
 */
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import type { DomElement } from '../../src/reader/dom.js';
import {
  allUnder,
  CHAIN,
  closestFrom,
  firstUnder,
  isTag,
  textLength,
  textsUnder,
} from '../../src/reader/dom-walk.js';
import { decodePage, webPageEntries } from './page-fixtures.js';

const body = (html: string) => parseHTML(html).document.body as unknown as DomElement;
const contentArea = (e: DomElement) =>
  /^(ARTICLE|MAIN)$/i.test(e.tagName) || e.getAttribute('role') === 'main';
/** The same nodes in the same order (by identity: nodes are cyclic, too deep to compare by value). */
const same = (a: ArrayLike<unknown>, b: ArrayLike<unknown>) =>
  a.length === b.length && Array.from(a).every((node, i) => node === b[i]);
const named = (e: DomElement) => e.hasAttribute('class') || e.hasAttribute('id');

/** textsUnder's answer the long way: childNodes, depth first, the skipped elements' subtrees left out. */
function textsByChildNodes(root: DomElement, skip: (element: DomElement) => boolean): string[] {
  const texts: string[] = [];
  const stack: DomElement[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as DomElement;
    if (node.nodeType === 3) texts.push(node.textContent ?? '');
    else if (node.nodeType === 1 && !skip(node)) {
      const children = node.childNodes as ArrayLike<DomElement>;
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as DomElement);
    }
  }
  return texts;
}

describe('selector-free lookups', () => {
  it('walk linkedom’s chain of nodes', () => {
    expect(CHAIN).toBeDefined();
  });

  it('find what the selectors find on every fixture page', () => {
    for (const page of webPageEntries()) {
      const root = body(decodePage(page));
      if (!root) continue;
      expect(same(allUnder(root, isTag('A')), Array.from(root.querySelectorAll('a'))), page.file).toBe(true);
      expect(
        same(allUnder(root, isTag('TR', 'P')), Array.from(root.querySelectorAll('tr, p'))),
        page.file,
      ).toBe(true);
      expect(same(allUnder(root, named), Array.from(root.querySelectorAll('[class], [id]'))), page.file).toBe(
        true,
      );
      expect(firstUnder(root, contentArea), page.file).toBe(
        root.querySelector('article, main, [role="main"]'),
      );
      expect(firstUnder(root, isTag('H1')), page.file).toBe(root.querySelector('h1'));
      // The lead paragraphs' lookups (content-candidates' leadParagraphs).
      expect(
        same(allUnder(root, isTag('HEADER')), Array.from(root.querySelectorAll('header'))),
        page.file,
      ).toBe(true);
      for (const header of Array.from(root.querySelectorAll('header'))) {
        expect(firstUnder(header, isTag('H1')), page.file).toBe(header.querySelector('h1'));
        expect(closestFrom(header.parentNode, isTag('ARTICLE')), page.file).toBe(
          header.parentNode?.closest('article') ?? null,
        );
        expect(
          same(allUnder(header, isTag('P', 'DIV')), Array.from(header.querySelectorAll('p, div'))),
          page.file,
        ).toBe(true);
      }
      for (const element of Array.from(root.querySelectorAll('*')))
        expect(textLength(element), page.file).toBe((element.textContent ?? '').length);
      const unseen = (e: DomElement) => /^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE|HEAD|TITLE)$/i.test(e.nodeName);
      const html = root.parentNode as DomElement;
      expect(textsUnder(html, unseen), page.file).toEqual(textsByChildNodes(html, unseen));
      expect(textsUnder(root, isTag('P')), page.file).toEqual(textsByChildNodes(root, isTag('P')));
      for (const element of Array.from(root.querySelectorAll('a, p, li, span')))
        expect(closestFrom(element, contentArea), page.file).toBe(
          element.closest('article, main, [role="main"]'),
        );
    }
  });

  it('leave a <template>’s contents out, as querySelectorAll does', () => {
    const root = body(
      '<html><body><p>a</p><template><p>t</p><main>m</main></template><div><p>b</p></div><main><p>c</p></main></body></html>',
    );
    expect(same(allUnder(root, isTag('P')), root.querySelectorAll('p'))).toBe(true);
    expect(allUnder(root, isTag('P'))).toHaveLength(3);
    expect(firstUnder(root, isTag('MAIN'))).toBe(root.querySelector('main'));
    expect(firstUnder(root, isTag('MAIN'))?.textContent).toBe('c');
    expect(textLength(root)).toBe((root.textContent ?? '').length);
    const template = isTag('TEMPLATE');
    expect(textsUnder(root, template)).toEqual(textsByChildNodes(root, template));
    expect(textsUnder(root, template).join('')).toBe('abc');
    expect(textsUnder(root, isTag('BODY'))).toEqual([]);
  });

  it('test tag names as tagName.toUpperCase() does, whatever the case or alphabet', () => {
    const { document } = parseHTML('<html><body></body></html>');
    const made = [
      'div',
      'DIV',
      'Div',
      'p',
      'P',
      'pre',
      'addreß',
      'ﬁgure',
      'lı',
      'ſection',
      'h1',
      'H1',
      'x',
    ].map((name) => document.createElement(name) as unknown as DomElement);
    for (const names of [['P'], ['DIV'], ['ADDRESS', 'FIGURE'], ['LI', 'SECTION'], ['H1', 'PRE']]) {
      const test = isTag(...names);
      for (const element of made)
        expect(test(element), `${element.tagName} ${names}`).toBe(
          names.includes(element.tagName.toUpperCase()),
        );
    }
  });
});
