/**
 * An extracted article (a DOM subtree from linkedom) as Markdown blocks the model can use: headings,
 * paragraphs, lists, tables as Markdown tables, fenced code, block quotes and links as `[text](url)`
 * with absolute URLs.
 *
 * It returns blocks, not one string: a block (a paragraph, a heading, a whole list, a table, a code
 * block) is the unit the passage selector ranks and the `[… N paragraphs skipped …]` markers count.
 *
 * The DOM is already built (by linkedom, in the reader's worker), so this is a walk, not a parser.
 * Recursion is capped at MAX_DEPTH: deeper markup is read as plain text, so 100k nested tags cannot
 * overflow the stack.
 */
import { codeBlock } from './code-block.js';
import { type DomNode, ELEMENT, firstElement, isHidden, MAX_DEPTH, TEXT } from './dom-node.js';

/**
 * Cells whose text is longer than this are cut in tables: a table is for comparing, not for essays.
 * Counted in what a reader sees (a link's target aside): a course schedule's cell of twenty cited
 * papers is 900 characters of text and three times that of Markdown.
 */
const MAX_CELL_CHARS = 1_200;

/** Never readable text, wherever they appear. */
const SKIP = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'SVG',
  'MATH',
  'IFRAME',
  'HEAD',
  'CANVAS',
  'SELECT',
  'OBJECT',
  'BUTTON',
  'INPUT',
  'TEXTAREA',
  'IMG',
  'PICTURE',
  'VIDEO',
  'AUDIO',
  'SOURCE',
  'LINK',
  'META',
  'DIALOG',
  'TITLE',
  // Photo captions and credits: ground-truth article text leaves them out, and so do readers.
  'FIGCAPTION',
  // A ruby's reading (furigana over kanji, pinyin over hanzi) is shown small above the text it
  // annotates: inline it splits every annotated word ("子こども"). The text itself stays.
  'RT',
  'RP',
]);
/** Elements whose content starts a new block. */
const BLOCK = new Set(
  'ADDRESS ARTICLE ASIDE BLOCKQUOTE DD DETAILS DIV DL DT FIELDSET FIGCAPTION FIGURE FOOTER FORM H1 H2 H3 H4 H5 H6 HEADER HGROUP HR LI MAIN NAV OL P PRE SECTION SUMMARY TABLE UL CENTER TBODY THEAD TFOOT TR TD TH CAPTION'.split(
    ' ',
  ),
);

export interface MarkdownOptions {
  /** Base for relative links (the page's URL, or its `<base href>`). */
  baseUrl?: string;
}

/** The subtree under `root` as Markdown blocks, in document order. */
export function domToMarkdownBlocks(root: DomNode, options: MarkdownOptions = {}): string[] {
  const writer = new BlockWriter(options);
  writer.container(root, 0);
  writer.flush();
  return writer.blocks;
}

class BlockWriter {
  readonly blocks: string[] = [];
  private inline: string[] = [];

  constructor(private readonly options: MarkdownOptions) {}

  /** Ends the paragraph being collected from inline content. */
  flush(): void {
    const text = literalNumbers(emphasis(collapse(this.inline.join(''))));
    this.inline = [];
    if (text) this.blocks.push(text);
  }

  /** Walks a block container: inline runs become paragraphs, block children their own blocks. */
  container(node: DomNode, depth: number): void {
    const children = node.childNodes;
    for (let i = 0; i < children.length; i++) {
      const child = children[i] as DomNode;
      if (child.nodeType === TEXT) {
        this.inline.push(spaced(child.textContent));
        continue;
      }
      if (child.nodeType !== ELEMENT) continue;
      const name = child.nodeName.toUpperCase();
      if (SKIP.has(name) || isHidden(child)) continue;
      if (depth >= MAX_DEPTH) {
        this.inline.push(` ${spaced(child.textContent)} `);
        continue;
      }
      if (name === 'BR') {
        this.inline.push(LINE_BREAK);
        continue;
      }
      if (name === 'A' && holdsBlocks(child)) {
        this.flush();
        this.card(child, depth + 1);
        continue;
      }
      if (!BLOCK.has(name) && name !== 'TABLE') {
        this.inline.push(inlineText(child, this.options, depth + 1));
        continue;
      }
      this.flush();
      this.block(child, name, depth + 1);
    }
  }

  /**
   * A link around blocks (a card in a grid of products, tutors, docs sections: its title, its
   * description, a price) reads as those blocks, the link on its title (its first heading, else its
   * first line): one run of link text would lose the card's structure and read as a list of links.
   */
  private card(link: DomNode, depth: number): void {
    const blocks = domToMarkdownBlocksAt(link, this.options, depth);
    const href = absoluteHttpUrl(link.getAttribute?.('href'), this.options.baseUrl);
    const titleAt = Math.max(
      0,
      blocks.findIndex((block) => /^#{1,6} /.test(block)),
    );
    const title = blocks[titleAt];
    if (href && title && !title.includes('](') && !title.includes('\n')) {
      const [, marks = '', text = title] = /^(#{1,6} )?(.*)$/s.exec(title) ?? [];
      blocks[titleAt] = `${marks}${markdownLink(text, href)}`;
    }
    this.blocks.push(...blocks);
  }

  private block(node: DomNode, name: string, depth: number): void {
    if (/^H[1-6]$/.test(name)) {
      const text = plainEmphasis(collapse(inlineText(node, this.options, depth)));
      if (text) this.blocks.push(`${'#'.repeat(Number(name[1]))} ${text}`);
      return;
    }
    switch (name) {
      case 'P':
      case 'FIGCAPTION':
      case 'DT':
      case 'SUMMARY': {
        // A paragraph may hold blocks in broken markup; read them as blocks, not one run.
        this.container(node, depth);
        this.flush();
        return;
      }
      case 'HR':
        return;
      case 'PRE': {
        const code = codeBlock(node);
        // A gutter of line numbers beside the code is not code.
        if (!/^[`~]+[\w+#-]*\n[\d\s]*\n[`~]+$/.test(code)) this.blocks.push(code);
        return;
      }
      case 'UL':
      case 'OL': {
        const lines = listLines(node, name === 'OL', 0, this.options, depth);
        if (lines.length > 0) this.blocks.push(lines.join('\n'));
        return;
      }
      case 'TABLE': {
        const table = tableMarkdown(node, this.options, depth);
        if (table) this.blocks.push(table);
        else {
          // A layout table: its cells are blocks of the page.
          this.container(node, depth);
          this.flush();
        }
        return;
      }
      case 'BLOCKQUOTE': {
        const inner = domToMarkdownBlocksAt(node, this.options, depth);
        if (inner.length > 0)
          this.blocks.push(
            inner
              .join('\n\n')
              .split('\n')
              .map((line) => (line ? `> ${line}` : '>'))
              .join('\n'),
          );
        return;
      }
      default:
        this.container(node, depth);
        this.flush();
    }
  }
}

/** `[text](href)`: brackets in the text escaped, parentheses and spaces in the target encoded. */
function markdownLink(text: string, href: string): string {
  return `[${text.replace(/([[\]])/g, '\\$1')}](${href.replace(/[()\s]/g, encodeURIComponent)})`;
}

/** Elements that make a link a card when it holds one (a heading, a paragraph, a list). */
const CARD_PARTS = new Set('H1 H2 H3 H4 H5 H6 P UL OL TABLE BLOCKQUOTE'.split(' '));

/** Whether a link holds block content: a heading, a paragraph or a list, or `<div>`s of text one after another. */
function holdsBlocks(link: DomNode): boolean {
  let blocks = 0;
  const visit = (node: DomNode, depth: number): boolean => {
    const children = node.childNodes;
    for (let i = 0; i < children.length; i++) {
      const child = children[i] as DomNode;
      if (child.nodeType !== ELEMENT) continue;
      const name = child.nodeName.toUpperCase();
      if (CARD_PARTS.has(name)) return true;
      if (BLOCK.has(name) && /[\p{L}\p{N}]/u.test(child.textContent ?? '') && ++blocks >= 2) return true;
      if (depth < 4 && visit(child, depth + 1)) return true;
    }
    return false;
  };
  return visit(link, 0);
}

function domToMarkdownBlocksAt(root: DomNode, options: MarkdownOptions, depth: number): string[] {
  const writer = new BlockWriter(options);
  writer.container(root, depth);
  writer.flush();
  return writer.blocks;
}

/** Inline content: text, links, emphasis and code spans; nested blocks read as spaced text. */
function inlineText(node: DomNode, options: MarkdownOptions, depth: number): string {
  if (node.nodeType === TEXT) return spaced(node.textContent);
  if (node.nodeType !== ELEMENT) return '';
  const name = node.nodeName.toUpperCase();
  if (SKIP.has(name) || isHidden(node)) return '';
  if (name === 'BR') return LINE_BREAK;
  if (depth >= MAX_DEPTH) return spaced(node.textContent);
  let inner = '';
  const children = node.childNodes;
  for (let i = 0; i < children.length; i++) inner += inlineText(children[i] as DomNode, options, depth + 1);
  switch (name) {
    case 'A': {
      const text = collapse(inner);
      const href = absoluteHttpUrl(node.getAttribute?.('href'), options.baseUrl);
      if (!text) return '';
      if (!href || text === href) return inner;
      return `${leading(inner)}${markdownLink(text, href)}${trailing(inner)}`;
    }
    case 'STRONG':
    case 'B': {
      const text = collapse(inner);
      // Bold punctuation (`**[**`) or bold links is noise, not emphasis. Marked for now: whether it
      // is written depends on the line it ends up in (emphasis()).
      return text && /[\p{L}\p{N}]/u.test(text) && !text.includes('](')
        ? `${leading(inner)}${BOLD_OPEN}${plainEmphasis(text)}${BOLD_CLOSE}${trailing(inner)}`
        : inner;
    }
    case 'CODE':
    case 'KBD':
    case 'SAMP': {
      const text = collapse(spaced(node.textContent));
      if (!text) return '';
      const fence = text.includes('`') ? '``' : '`';
      return `${fence}${text}${fence}`;
    }
    case 'SUP':
    case 'SUB':
      return inner;
    default:
      return BLOCK.has(name) ? ` ${inner} ` : inner;
  }
}

function leading(text: string): string {
  return /^\s/.test(text) ? ' ' : '';
}
function trailing(text: string): string {
  return /\s$/.test(text) ? ' ' : '';
}

function listLines(
  list: DomNode,
  ordered: boolean,
  indent: number,
  options: MarkdownOptions,
  depth: number,
): string[] {
  const lines: string[] = [];
  const pad = '  '.repeat(indent);
  let n = 1;
  const children = list.childNodes;
  for (let i = 0; i < children.length; i++) {
    const item = children[i] as DomNode;
    if (item.nodeType !== ELEMENT || isHidden(item)) continue;
    const name = item.nodeName.toUpperCase();
    if (name === 'UL' || name === 'OL') {
      lines.push(...listLines(item, name === 'OL', indent + 1, options, depth + 1));
      continue;
    }
    if (name !== 'LI') continue;
    // The item's own text; lists inside it become indented lines under it.
    let text = '';
    const nested: string[] = [];
    const parts = item.childNodes;
    for (let j = 0; j < parts.length; j++) {
      const part = parts[j] as DomNode;
      const partName = part.nodeType === ELEMENT ? part.nodeName.toUpperCase() : '';
      if ((partName === 'UL' || partName === 'OL') && depth < MAX_DEPTH) {
        nested.push(...listLines(part, partName === 'OL', indent + 1, options, depth + 1));
      } else if (partName === 'PRE') {
        nested.push(
          ...codeBlock(part)
            .split('\n')
            .map((line) => `${pad}  ${line}`),
        );
      } else {
        text += inlineText(part, options, depth + 1);
        if (BLOCK.has(partName)) text += ' ';
      }
    }
    const clean = emphasis(collapse(text).replace(/\n/g, ' '));
    if (clean) lines.push(`${pad}${ordered ? `${n++}.` : '-'} ${clean}`);
    lines.push(...nested);
  }
  return lines;
}

/**
 * A data table as a Markdown table; undefined for a layout table (nested tables, or a single
 * column), which the caller reads as blocks instead.
 */
function tableMarkdown(table: DomNode, options: MarkdownOptions, depth: number): string | undefined {
  const rows: string[][] = [];
  let nestedTable = false;
  const visit = (node: DomNode, level: number) => {
    const children = node.childNodes;
    for (let i = 0; i < children.length; i++) {
      const child = children[i] as DomNode;
      if (child.nodeType !== ELEMENT) continue;
      const name = child.nodeName.toUpperCase();
      if (name === 'TR') {
        const cells: string[] = [];
        const cellNodes = child.childNodes;
        for (let j = 0; j < cellNodes.length; j++) {
          const cell = cellNodes[j] as DomNode;
          const cellName = cell.nodeType === ELEMENT ? cell.nodeName.toUpperCase() : '';
          if (cellName !== 'TD' && cellName !== 'TH') continue;
          // A table of code (line numbers beside the code, as Hugo and Pygments write it) is read as code.
          if (firstElement(cell, 'TABLE') || firstElement(cell, 'PRE')) nestedTable = true;
          const text = plainEmphasis(collapse(inlineText(cell, options, depth + 1)).replace(/\n/g, ' '));
          cells.push(cutCell(text).replace(/\|/g, '\\|'));
          const span = Number(cell.getAttribute?.('colspan') ?? 1);
          for (let k = 1; k < Math.min(span, 20); k++) cells.push('');
        }
        if (cells.some((c) => c !== '')) rows.push(cells);
      } else if (name === 'THEAD' || name === 'TBODY' || name === 'TFOOT') {
        if (level < 3) visit(child, level + 1);
      } else if (name === 'TABLE') {
        nestedTable = true;
      }
    }
  };
  visit(table, 0);
  const width = Math.max(0, ...rows.map((r) => r.length));
  if (nestedTable || rows.length === 0 || width < 2) return undefined;
  const caption = firstElement(table, 'CAPTION');
  const lines = rows.map((r) => `| ${[...r, ...Array(width - r.length).fill('')].join(' | ')} |`);
  lines.splice(1, 0, `|${' --- |'.repeat(width)}`);
  const title = caption ? collapse(caption.textContent ?? '') : '';
  return title ? `${title}\n\n${lines.join('\n')}` : lines.join('\n');
}

/** An http(s) URL made absolute against the page, or undefined (javascript:, mailto:, fragments). */
export function absoluteHttpUrl(
  href: string | null | undefined,
  base: string | undefined,
): string | undefined {
  if (!href) return undefined;
  const trimmed = href.trim();
  if (!trimmed || trimmed.startsWith('#')) return undefined;
  try {
    const url = new URL(trimmed, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** Stand for the start and end of a bold run until emphasis() decides how the line writes it. */
const BOLD_OPEN = '\uE001';
const BOLD_CLOSE = '\uE002';
const BOLD_MARKS = /[\uE001\uE002]/g;
const WHOLE_BOLD_LINE = /^\uE001([^\uE001\uE002]*)\uE002$/;

/**
 * Bold that is a whole line (a label over what follows, a paragraph set in bold) stays `**…**`;
 * bold inside a sentence is written as plain words: `**` in the middle of a sentence tells the model
 * little and splits the sentence for anything that looks for its words as written.
 */
function emphasis(text: string): string {
  if (!text.includes(BOLD_OPEN)) return text;
  return text
    .split('\n')
    .map((line) => {
      const whole = WHOLE_BOLD_LINE.exec(line);
      return whole ? `**${whole[1]}**` : line.replace(BOLD_MARKS, '');
    })
    .join('\n');
}

/** A line of text that starts like an ordered list item: `1. `, `12) `. */
const LIST_NUMBER_START = /^(\d{1,9})([.)])(?= )/gm;

/**
 * A paragraph's line that starts with a number and a dot ("1. Eat less", "1986. A good year") is the
 * page's text, not a list the page marked up: its dot is escaped as CommonMark (and turndown) write
 * it, so the number stays text for whoever reads the Markdown as Markdown. Lists the page marks up
 * are written by listLines, unescaped.
 */
function literalNumbers(text: string): string {
  return text.replace(LIST_NUMBER_START, '$1\\$2');
}

/** `[text](url)` as linkMarkdown writes it (brackets in the text escaped, no spaces or parentheses in the url). */
const WRITTEN_LINK = /\[(?:[^\]\\]|\\.)*\]\([^()\s]*\)/g;

/**
 * A cell's Markdown cut to MAX_CELL_CHARS of visible text, at a word and never inside a link (a cut
 * link leaves its syntax as words and swallows the cells after it).
 */
function cutCell(markdown: string): string {
  if (markdown.length <= MAX_CELL_CHARS) return markdown;
  let visible = 0;
  let from = 0;
  let out = '';
  const plain = (text: string): boolean => {
    if (visible + text.length <= MAX_CELL_CHARS) {
      out += text;
      visible += text.length;
      return true;
    }
    const room = text.slice(0, MAX_CELL_CHARS - visible);
    const space = room.lastIndexOf(' ');
    out += space > 0 ? room.slice(0, space) : room;
    return false;
  };
  for (const match of markdown.matchAll(WRITTEN_LINK)) {
    if (!plain(markdown.slice(from, match.index))) return `${out.trimEnd()} …`;
    const linkText = match[0].slice(1, match[0].indexOf(']('));
    if (visible + linkText.length > MAX_CELL_CHARS) return `${out.trimEnd()} …`;
    out += match[0];
    visible += linkText.length;
    from = match.index + match[0].length;
  }
  return plain(markdown.slice(from)) ? out : `${out.trimEnd()} …`;
}

/** Text where emphasis is never written (headings, table cells). */
function plainEmphasis(text: string): string {
  return text.replace(BOLD_MARKS, '');
}

/** Stands for `<br>` until collapse(): source line breaks in text are only spaces. */
const LINE_BREAK = '\uE000';

/**
 * Characters a browser never shows: soft hyphens (`&shy;`, set in long German words for line
 * breaking), zero-width spaces, word joiners and stray byte-order marks. Left in, they split words
 * for the model's tokenizer and for any search of the text ("Wäh\u00adrend" is not "Während").
 * Zero-width (non-)joiners stay: Persian, Indic scripts and emoji need them.
 */
const INVISIBLE = /[\u00ad\u200b\u2060\ufeff]/g;

/** A text node's whitespace (line breaks of the HTML source included) as single spaces, invisible characters gone. */
function spaced(text: string | null): string {
  return (text ?? '').replace(INVISIBLE, '').replace(/\s+/g, ' ');
}

/** Whitespace runs become one space; line breaks from `<br>` survive, trimmed. */
function collapse(text: string): string {
  // Most blocks hold no <br>: one line, no arrays.
  if (!text.includes(LINE_BREAK)) return text.replace(/\s+/g, ' ').trim();
  return text
    .split(LINE_BREAK)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}
