/**
 * What a page says it holds, in its own structured data: schema.org Recipe (ingredients, steps),
 * HowTo (supplies, steps), FAQPage (questions and answers) and Product (price, brand, description),
 * from JSON-LD or microdata, as Markdown blocks. It is one of the candidates the reader compares
 * (extract-article.ts): where the page's visible text that Readability or the cleaned page chose
 * leaves out most of it (a recipe card in a sidebar, answers drawn by script), its blocks are added.
 * Words of the page's own language come through as they are; the few labels are the model's.
 */
import type { DomDocument, DomElement } from './dom.js';
import { isJsonLd } from './page-metadata.js';

export interface StructuredContent {
  /** The schema.org type read. */
  type: 'Recipe' | 'HowTo' | 'FAQPage' | 'Product';
  blocks: string[];
  /** The texts that say the page's content is there (ingredients, steps, answers, the description). */
  keys: string[];
}

type LdNode = Record<string, unknown>;

/** One JSON-LD block bigger than this is not metadata: not parsed. */
const MAX_JSON_LD_CHARS = 1_000_000;
/** Items of a list read at most (ingredients, steps, questions). */
const MAX_ITEMS = 200;
const MAX_ITEM_CHARS = 4_000;
const TYPES = ['Recipe', 'HowTo', 'FAQPage', 'Product'] as const;

/** The page's structured content, JSON-LD first, then microdata; undefined where it has none. */
export function structuredContent(
  document: DomDocument,
  /** The document's elements in document order, when the caller has them (one walk for all). */
  elements: DomElement[] = Array.from(document.querySelectorAll('*')),
): StructuredContent | undefined {
  const nodes = jsonLdNodes(elements);
  for (const type of TYPES) {
    const node = nodes.find((n) => types(n).includes(type));
    const read = node ? fromJsonLd(type, node) : undefined;
    if (read && read.keys.length > 0) return read;
  }
  return fromMicrodata(elements);
}

function jsonLdNodes(elements: DomElement[]): LdNode[] {
  const nodes: LdNode[] = [];
  for (const script of elements) {
    if (!isJsonLd(script)) continue;
    const source = script.textContent ?? '';
    if (source.length > MAX_JSON_LD_CHARS) continue;
    try {
      collect(JSON.parse(source.replace(/^\s*<!--|-->\s*$/g, '')), nodes, 0);
    } catch {
      // Broken JSON-LD is common: the page's visible text still counts.
    }
  }
  return nodes;
}

function collect(value: unknown, out: LdNode[], depth: number): void {
  if (depth > 4 || out.length > 200 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) collect(item, out, depth + 1);
    return;
  }
  const node = value as LdNode;
  if (node['@type']) out.push(node);
  if (node['@graph']) collect(node['@graph'], out, depth + 1);
}

function types(node: LdNode): string[] {
  return [node['@type']].flat().map(String);
}

function fromJsonLd(type: StructuredContent['type'], node: LdNode): StructuredContent | undefined {
  const description = plain(node.description);
  switch (type) {
    case 'Recipe': {
      const ingredients = strings(node.recipeIngredient ?? node.ingredients);
      const steps = howToSteps(node.recipeInstructions);
      const facts = [
        field('Yield', plain(first(node.recipeYield))),
        field('Prep time', duration(node.prepTime)),
        field('Cook time', duration(node.cookTime)),
        field('Total time', duration(node.totalTime)),
      ];
      return recipeLike(type, description, facts, [['Ingredients', ingredients]], steps);
    }
    case 'HowTo': {
      const supplies = strings(asNames(node.supply));
      const tools = strings(asNames(node.tool));
      const facts = [field('Total time', duration(node.totalTime))];
      return recipeLike(
        type,
        description,
        facts,
        [
          ['Supplies', supplies],
          ['Tools', tools],
        ],
        howToSteps(node.step),
      );
    }
    case 'FAQPage': {
      const blocks: string[] = [];
      const keys: string[] = [];
      for (const q of asArray(node.mainEntity).slice(0, MAX_ITEMS)) {
        if (!q || typeof q !== 'object') continue;
        const question = plain((q as LdNode).name);
        const answer = plain(
          textOf((q as LdNode).acceptedAnswer) ?? textOf(first((q as LdNode).suggestedAnswer)),
        );
        if (!question || !answer) continue;
        blocks.push(`### ${question}`, answer);
        keys.push(answer);
      }
      return { type, blocks, keys };
    }
    case 'Product': {
      const offer = first(node.offers) as LdNode | undefined;
      const price = offer ? plain(offer.price ?? offer.lowPrice) : undefined;
      const currency = offer ? plain(offer.priceCurrency) : undefined;
      const availability = offer
        ? plain(offer.availability)?.replace(/^https?:\/\/schema\.org\//, '')
        : undefined;
      const brand = plain(asNames(node.brand));
      const facts = [
        field('Price', price ? `${price}${currency ? ` ${currency}` : ''}` : undefined),
        field('Brand', brand),
        field('Availability', availability?.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()),
      ].filter(Boolean);
      const blocks = [
        ...(facts.length > 0 ? [facts.join(' · ')] : []),
        ...(description ? [description] : []),
      ];
      return { type, blocks, keys: [...(description ? [description] : []), ...(price ? [price] : [])] };
    }
  }
}

function recipeLike(
  type: StructuredContent['type'],
  description: string | undefined,
  facts: Array<string | undefined>,
  lists: Array<[string, string[]]>,
  steps: Array<{ section?: string; text: string }>,
): StructuredContent {
  const blocks: string[] = [];
  const keys: string[] = [];
  if (description) blocks.push(description);
  const known = facts.filter(Boolean);
  if (known.length > 0) blocks.push(known.join(' · '));
  for (const [label, items] of lists) {
    if (items.length === 0) continue;
    blocks.push(`### ${label}`, items.map((i) => `- ${i}`).join('\n'));
    keys.push(...items);
  }
  if (steps.length > 0) {
    blocks.push('### Steps');
    let n = 1;
    let lines: string[] = [];
    for (const step of steps) {
      if (step.section) {
        if (lines.length > 0) blocks.push(lines.join('\n'));
        lines = [];
        blocks.push(`#### ${step.section}`);
        continue;
      }
      lines.push(`${n++}. ${step.text}`);
      keys.push(step.text);
    }
    if (lines.length > 0) blocks.push(lines.join('\n'));
  }
  return { type, blocks, keys };
}

/** Steps as schema.org writes them: a string, HowToStep items, HowToSection items holding steps. */
function howToSteps(value: unknown, depth = 0): Array<{ section?: string; text: string }> {
  const out: Array<{ section?: string; text: string }> = [];
  if (typeof value === 'string') {
    // One string: its lines (or sentences on one line, when that is all there is) are the steps.
    for (const line of plainText(value).split(/\n+/)) if (line.trim()) out.push({ text: line.trim() });
    return out.slice(0, MAX_ITEMS);
  }
  for (const item of asArray(value).slice(0, MAX_ITEMS)) {
    if (typeof item === 'string') {
      const text = plain(item);
      if (text) out.push({ text });
      continue;
    }
    if (!item || typeof item !== 'object') continue;
    const node = item as LdNode;
    if (types(node).includes('HowToSection') && depth < 2) {
      const name = plain(node.name);
      const inner = howToSteps(node.itemListElement ?? node.steps, depth + 1);
      if (name && inner.length > 0) out.push({ section: name, text: '' });
      out.push(...inner);
      continue;
    }
    const text = plain(node.text) ?? plain(node.name);
    if (text) out.push({ text });
  }
  return out;
}

/**
 * Microdata (`itemscope itemtype="…schema.org/Recipe"` and `itemprop`s) where a page has no JSON-LD
 * of these types.
 */
function fromMicrodata(elements: DomElement[]): StructuredContent | undefined {
  // [itemscope][itemtype], from the one walk.
  const scopes = elements.filter(
    (element) => element.getAttribute('itemscope') !== null && element.getAttribute('itemtype') !== null,
  );
  for (const type of TYPES) {
    const kind = new RegExp(`schema\\.org/${type}/?$`);
    const scope = scopes.find((element) => kind.test(element.getAttribute('itemtype') ?? ''));
    if (!scope) continue;
    const props = (name: string) =>
      Array.from(scope.querySelectorAll(`[itemprop~="${name}"]`) as Iterable<DomElement>)
        .slice(0, MAX_ITEMS)
        .map(itemValue)
        .filter((v): v is string => v !== undefined);
    const description = props('description')[0];
    let read: StructuredContent | undefined;
    if (type === 'Recipe' || type === 'HowTo') {
      const steps = (type === 'Recipe' ? props('recipeInstructions') : props('step')).map((text) => ({
        text,
      }));
      read = recipeLike(
        type,
        description,
        [field('Yield', props('recipeYield')[0]), field('Total time', duration(props('totalTime')[0]))],
        [['Ingredients', [...props('recipeIngredient'), ...props('ingredients')]]],
        steps,
      );
    } else if (type === 'FAQPage') {
      const blocks: string[] = [];
      const keys: string[] = [];
      for (const q of Array.from(
        scope.querySelectorAll('[itemprop~="mainEntity"]') as Iterable<DomElement>,
      ).slice(0, MAX_ITEMS)) {
        const question = itemValue(q.querySelector('[itemprop~="name"]') as DomElement | null);
        const answer = itemValue(
          q.querySelector('[itemprop~="acceptedAnswer"] [itemprop~="text"]') as DomElement | null,
        );
        if (question && answer) {
          blocks.push(`### ${question}`, answer);
          keys.push(answer);
        }
      }
      read = { type, blocks, keys };
    } else {
      const price = props('price')[0];
      const currency = props('priceCurrency')[0];
      const facts = [field('Price', price ? `${price}${currency ? ` ${currency}` : ''}` : undefined)].filter(
        Boolean,
      );
      read = {
        type,
        blocks: [...facts.map(String), ...(description ? [description] : [])],
        keys: [...(description ? [description] : []), ...(price ? [price] : [])],
      };
    }
    if (read.keys.length > 0) return read;
  }
  return undefined;
}

function itemValue(element: DomElement | null): string | undefined {
  if (!element) return undefined;
  return plain(element.getAttribute('content') ?? element.textContent);
}

function field(label: string, value: string | undefined): string | undefined {
  return value ? `${label}: ${value}` : undefined;
}

/** `PT1H10M` → `1 h 10 min`; anything else as it is. */
function duration(value: unknown): string | undefined {
  const raw = plain(value);
  const match = raw ? /^P(?:(\d+)D)?T?(?:(\d+)H)?(?:(\d+)M)?$/i.exec(raw) : null;
  if (!match) return raw;
  const [, d, h, m] = match;
  const parts = [
    d && d !== '0' ? `${d} d` : '',
    h && h !== '0' ? `${h} h` : '',
    m && m !== '0' ? `${m} min` : '',
  ];
  return parts.filter(Boolean).join(' ') || undefined;
}

function asArray(value: unknown): unknown[] {
  return value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
}

function first(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

function asNames(value: unknown): unknown {
  return Array.isArray(value)
    ? value.map((v) => (v && typeof v === 'object' ? (v as LdNode).name : v))
    : value && typeof value === 'object'
      ? (value as LdNode).name
      : value;
}

function textOf(value: unknown): unknown {
  return value && typeof value === 'object' ? (value as LdNode).text : value;
}

function strings(value: unknown): string[] {
  return asArray(value)
    .slice(0, MAX_ITEMS)
    .map(plain)
    .filter((v): v is string => v !== undefined);
}

/** A JSON-LD value as one line of text: markup inside it dropped, entities it often carries decoded. */
function plain(value: unknown): string | undefined {
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') return undefined;
  const text = plainText(value).replace(/\s+/g, ' ').trim();
  return text ? text.slice(0, MAX_ITEM_CHARS) : undefined;
}

/** Markup out (block ends as line breaks), the common entities decoded. */
function plainText(value: string): string {
  return value
    .slice(0, MAX_ITEM_CHARS * 4)
    .replace(/<(br|\/p|\/li|\/h\d|\/div)\b[^>]*>/gi, '\n')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
