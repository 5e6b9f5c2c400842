/**
 * What of a long page reaches the model, seen as the model sees it: `fetch_url` calls through the
 * tool registry against a loopback server that sends the corpus pages (test/fixtures/pages) with
 * their own bytes and Content-Type. A short page comes whole; past the default budget the passages
 * most relevant to the focus (the user's question when the call names none) come in document order
 * with visible skip markers; `part` reads the page in order and says where it is.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { readDocument } from '../../src/reader/read-document.js';
import { FETCH_MAX_CHARS, type FetchUrlOptions, MAX_PARTS } from '../../src/tools/fetch-policy.js';
import { createDefaultTools } from '../../src/tools/default-tools.js';
import { createFetchUrlTool } from '../../src/tools/fetch-url-tool.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import type { Tool, ToolContext, ToolOutput } from '../../src/tools/types.js';
import { loadManifest, type PageEntry, pageBytes } from './page-fixtures.js';
import { warmReader } from './warm-reader.js';

const manifest = loadManifest();
const page = (name: string): PageEntry => {
  const entry = manifest.find((p) => p.name === name);
  if (!entry) throw new Error(`${name} is not in test/fixtures/pages/pages.json`);
  return entry;
};
const long = page('long-cable-ships');
const lastThird = long.lastThirdSentence as string;
const short = page('wp-news-ferry');
const gbk = page('gbk-chinese-metro');

/** A long Chinese article: forty station notes, then the one paragraph about lifts, then more. */
const STATIONS =
  '东湖 西站 南门 北苑 中山 临江 新港 青园 金桥 石湾 白塔 红岭 翠湖 松林 梅溪 柳岸 桃源 竹园 兰亭 菊花 长乐 永安 福田 寿山 康宁 太平 和平 光明 朝阳 星河 月湾 云峰 雨花 雪松 春晖 夏荷 秋实 冬青 晨光 暮色'.split(
    ' ',
  );
const CHINESE_LIFTS =
  '为方便乘客出行，全线各车站均设置了无障碍电梯和母婴室，轮椅乘客可以从地面直接乘坐无障碍电梯到达站台，部分车站还与公交首末站实现了无缝衔接。';
const CHINESE_PAGE = `<!doctype html><html lang="zh"><head><meta charset="utf-8"><title>江城地铁三号线全线车站巡礼</title></head>
<body><article><h1>江城地铁三号线全线车站巡礼</h1>
<p>江城地铁三号线全长四十一点二公里，共设车站四十一座。本报记者沿线走访，逐站介绍各车站的位置、出入口和换乘情况。</p>
${STATIONS.map(
  (name, i) =>
    `<p>第${i + 1}站${name}站位于${name}街道，站台长一百二十米，设有${(i % 4) + 2}个出入口，可与${i + 101}路公交车换乘。早高峰时段该站进出站客流约${(i + 3) * 700}人次，周边有学校、商场和住宅小区，是沿线客流较大的车站之一。站内装饰以${name}的历史文化为主题，墙面绘有当地风景。该站于二〇二一年${(i % 12) + 1}月开始主体结构施工，施工期间对周边道路进行了临时改造。站厅层设有自动售票机${(i % 5) + 4}台和人工服务中心一处。记者在现场看到，不少市民在站厅内驻足观看墙上的壁画，还有人拿出手机拍照留念。附近居民表示，车站开通后出行方便了很多，到市中心只需要二十多分钟。</p>${i === 33 ? `\n<p>${CHINESE_LIFTS}</p>` : ''}`,
).join('\n')}
<p>市轨道交通集团表示，三号线开通后将根据客流情况适时调整运营时间和行车间隔。</p>
</article></body></html>`;

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    const name = (req.url ?? '').slice(1);
    if (name === 'zh-stations') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(CHINESE_PAGE);
      return;
    }
    const entry = manifest.find((p) => p.name === name);
    if (!entry) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': entry.contentType });
    res.end(pageBytes(entry));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await warmReader();
}, 60_000);
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/**
 * The fixture articles were written to run past an 8,000-character budget (about 4, 1.3 and 0.6 of
 * them), so selection is tested at that budget rather than the default, which follows the model's
 * context window (src/tools/fetch-policy.ts).
 */
const BUDGET = 8_000;

const loopbackOnly: FetchUrlOptions = {
  policy: 'open',
  maxChars: BUDGET,
  isAllowedAddress: (address) => address === '127.0.0.1',
};

function fetchUrl(
  input: { url: string; focus?: string; part?: number },
  options: { question?: string; maxPageChars?: number; tool?: FetchUrlOptions } = {},
): Promise<ToolOutput> {
  const registry = createToolRegistry([createFetchUrlTool({ ...loopbackOnly, ...options.tool }) as Tool], {
    logger: silentLogger,
  });
  const context: ToolContext = {
    sessionKey: 's',
    signal: new AbortController().signal,
    ...(options.question ? { question: options.question } : {}),
    ...(options.maxPageChars ? { maxPageChars: options.maxPageChars } : {}),
  };
  return registry.execute('fetch_url', JSON.stringify(input), context);
}

/** The tool's output split into its header lines and the document text the model reads. */
function split(out: ToolOutput): { header: string; body: string } {
  expect(out.isError, out.text).toBeUndefined();
  const at = out.text.indexOf('\n\n');
  return { header: out.text.slice(0, at), body: out.text.slice(at + 2) };
}

const MARKER = /^\[… (\d+) paragraphs? skipped …\]$/;
const blocksOf = (body: string) => body.split('\n\n');
const isMarker = (block: string) => MARKER.test(block);
const skippedIn = (body: string) =>
  blocksOf(body).reduce((sum, block) => sum + Number(MARKER.exec(block)?.[1] ?? 0), 0);
/** Link references read as their text and the list of targets left off: numbers differ between selections. */
const withoutLinks = (text: string) =>
  text.replace(/\n\n\[L1\]: https?:\/\/[\s\S]*$/, '').replace(/\[((?:[^\]\\]|\\.)*)\]\[L\d+\]/g, '$1');
const oneLine = (text: string) => withoutLinks(text).replace(/\s+/g, ' ').trim();

/** The whole article as the reader reads it, for order and completeness checks. */
async function wholeText(entry: PageEntry): Promise<string> {
  const read = await readDocument({
    body: pageBytes(entry),
    contentType: entry.contentType,
    url: `${base}/${entry.name}`,
  });
  return read.markdown;
}

describe('a short page', () => {
  it('comes whole, with or without a focus: no parts, no markers', async () => {
    const whole = await wholeText(short);
    expect(whole.length).toBeLessThan(BUDGET);
    for (const input of [{}, { focus: 'ferry timetable' }]) {
      const { header, body } = split(await fetchUrl({ url: `${base}/${short.name}`, ...input }));
      expect(header).not.toMatch(/Part \d+ of|Passages most relevant|\n/);
      expect(body).toBe(whole.trim());
      expect(blocksOf(body).some(isMarker)).toBe(false);
    }
  });
});

describe('a long article, past the budget', () => {
  it('with a focus naming a sentence from its last third: that sentence reaches the model', async () => {
    const whole = await wholeText(long);
    expect(whole.length).toBeGreaterThan(BUDGET * 3);
    // The sentence really is deep in the article, out of reach of a reader that keeps the start.
    expect(oneLine(whole).indexOf(lastThird)).toBeGreaterThan(
      oneLine(whole).length * (2 / 3) - lastThird.length,
    );

    const { header, body } = split(await fetchUrl({ url: `${base}/${long.name}`, focus: lastThird }));
    expect(oneLine(body)).toContain(lastThird);
    expect(body.length).toBeLessThanOrEqual(BUDGET);
    // The header says what this is and how to read the rest; its count matches the visible markers.
    const said =
      /^[^\n]+\nPassages most relevant to the focus, (\d+) paragraphs skipped; part=1…(\d+) reads all \2 parts in order\.$/.exec(
        header,
      );
    expect(said, header).not.toBeNull();
    expect(blocksOf(body).filter(isMarker).length).toBeGreaterThan(1);
    expect(skippedIn(body)).toBe(Number(said?.[1]));

    // Every passage kept is a passage of the article, in the article's order.
    const flat = oneLine(whole);
    let from = 0;
    for (const block of blocksOf(withoutLinks(body)).filter((b) => !isMarker(b))) {
      const at = flat.indexOf(oneLine(block), from);
      expect(at, `out of order or not in the article: ${block.slice(0, 80)}`).toBeGreaterThanOrEqual(from);
      from = at + oneLine(block).length;
    }
    // The article's opening comes first: it says what the page is about.
    expect(flat.startsWith(oneLine(blocksOf(body)[0] as string))).toBe(true);
  });

  it("with no focus, the user's question is the focus", async () => {
    const question = 'At what time in the morning was the splice that restored the Faroe link finished?';
    const { header, body } = split(await fetchUrl({ url: `${base}/${long.name}` }, { question }));
    expect(header).toMatch(/Passages most relevant to the user's question, \d+ paragraphs skipped/);
    expect(oneLine(body)).toContain(lastThird);
    expect(body.length).toBeLessThanOrEqual(BUDGET);

    // Without a question either, the page is read from its start, and the sentence is not in it.
    const plain = split(await fetchUrl({ url: `${base}/${long.name}` }));
    expect(plain.header).toMatch(/\nPart 1 of \d+\. part=2 reads on\.$/);
    expect(oneLine(plain.body)).not.toContain(lastThird);
  });

  it('a focus given in the call wins over the question', async () => {
    const { header, body } = split(
      await fetchUrl(
        { url: `${base}/${long.name}`, focus: lastThird },
        { question: 'Who owns the cable ships and how old are they?' },
      ),
    );
    expect(header).toMatch(/most relevant to the focus,/);
    expect(oneLine(body)).toContain(lastThird);
  });

  it('part: 2 reads on from where part 1 ended and says which part of how many', async () => {
    const url = `${base}/${long.name}`;
    const first = split(await fetchUrl({ url, part: 1 }));
    const parts = Number(/Part 1 of (\d+)\./.exec(first.header)?.[1]);
    expect(parts).toBeGreaterThanOrEqual(3);
    const second = split(await fetchUrl({ url, part: 2 }));
    expect(second.header).toContain(`Part 2 of ${parts}. part=3 reads on.`);

    // Part 2 opens with a marker for exactly the blocks part 1 showed, and the two do not overlap.
    const firstBlocks = blocksOf(withoutLinks(first.body)).filter((b) => !isMarker(b));
    expect(blocksOf(second.body)[0]).toBe(`[… ${firstBlocks.length} paragraphs skipped …]`);
    const secondBlocks = blocksOf(withoutLinks(second.body)).filter((b) => !isMarker(b));
    expect(secondBlocks.length).toBeGreaterThan(0);
    expect(second.body.length).toBeLessThanOrEqual(BUDGET);

    // Every part in turn, the last one saying so: together they are the whole article, in order.
    const all = [firstBlocks, secondBlocks];
    for (let part = 3; part <= parts; part++) {
      const next = split(await fetchUrl({ url, part }));
      expect(next.header).toContain(`Part ${part} of ${parts}.`);
      if (part === parts) expect(next.header).not.toContain('reads on');
      all.push(blocksOf(withoutLinks(next.body)).filter((b) => !isMarker(b)));
    }
    expect(oneLine(all.flat().join('\n\n'))).toBe(oneLine(await wholeText(long)));
  });
});

describe('a result page read within a search round, at a shorter budget', () => {
  /** AGENT_READ_RESULTS reads a result page at a budget of its own, a fraction of the page budget. */
  const SHORT = 2_000;

  it('names the parts a call with `part` returns, whether it holds passages or the start', async () => {
    const url = `${base}/${long.name}`;
    const parts = Number(/Part 1 of (\d+)\./.exec(split(await fetchUrl({ url, part: 1 })).header)?.[1]);
    expect(parts).toBeGreaterThanOrEqual(3);
    const readingOn = `part=1…${parts} reads all ${parts} parts in order.`;

    const passages = split(await fetchUrl({ url, focus: lastThird }, { maxPageChars: SHORT }));
    expect(passages.header).toMatch(/\nPassages most relevant to the focus, \d+ paragraphs skipped; /);
    expect(passages.header.endsWith(readingOn)).toBe(true);
    expect(oneLine(passages.body)).toContain(lastThird);
    expect(passages.body.length).toBeLessThanOrEqual(SHORT);

    // Nothing to rank by: the page's start, less than its first part, and not called a part.
    const start = split(await fetchUrl({ url }, { maxPageChars: SHORT }));
    expect(start.header.endsWith(`\nThe start of the page; ${readingOn}`)).toBe(true);
    expect(start.body.length).toBeLessThanOrEqual(SHORT);
    const startBlocks = blocksOf(withoutLinks(start.body)).filter((b) => !isMarker(b));
    const firstPart = blocksOf(withoutLinks(split(await fetchUrl({ url, part: 1 })).body));
    expect(firstPart.slice(0, startBlocks.length)).toEqual(startBlocks);
    expect(firstPart.length).toBeGreaterThan(startBlocks.length);
  });

  it('a page within the page budget is one part: part=1 reads it whole', async () => {
    const whole = await wholeText(short);
    const shorter = Math.floor(whole.length / 2);
    const { header, body } = split(
      await fetchUrl({ url: `${base}/${short.name}`, focus: 'ferry timetable' }, { maxPageChars: shorter }),
    );
    expect(header).toMatch(/; part=1 reads it whole\.$/);
    expect(body.length).toBeLessThanOrEqual(shorter);
    expect(split(await fetchUrl({ url: `${base}/${short.name}`, part: 1 })).body).toBe(whole.trim());
  });
});

describe('a document of more parts than `part` reaches', () => {
  it(`names only the parts a call can read: the first ${MAX_PARTS}, and none after the ${MAX_PARTS}th`, async () => {
    const url = `${base}/${long.name}`;
    const tiny = { tool: { maxChars: 200 } };
    const parts = Number(/Part 1 of (\d+)\./.exec(split(await fetchUrl({ url, part: 1 }, tiny)).header)?.[1]);
    expect(parts).toBeGreaterThan(MAX_PARTS);
    const passages = split(await fetchUrl({ url, focus: lastThird }, tiny));
    expect(passages.header).toMatch(
      new RegExp(`; part=1…${MAX_PARTS} reads the first ${MAX_PARTS} of its ${parts} parts in order\\.$`),
    );
    const before = split(await fetchUrl({ url, part: MAX_PARTS - 1 }, tiny));
    expect(before.header).toContain(`Part ${MAX_PARTS - 1} of ${parts}. part=${MAX_PARTS} reads on.`);
    const last = split(await fetchUrl({ url, part: MAX_PARTS }, tiny));
    expect(last.header).toContain(`Part ${MAX_PARTS} of ${parts}. part goes no further than ${MAX_PARTS}.`);
    // The part after it is one the call refuses: no header names it.
    expect((await fetchUrl({ url, part: MAX_PARTS + 1 }, tiny)).isError).toBe(true);
  });
});

describe('Chinese pages', () => {
  it('a Chinese focus finds the right passage of a long Chinese article', async () => {
    expect(CHINESE_PAGE.length).toBeGreaterThan(BUDGET * 1.2);
    const { header, body } = split(
      await fetchUrl({ url: `${base}/zh-stations`, focus: '车站有没有无障碍电梯？' }),
    );
    expect(header).toMatch(/Passages most relevant to the focus, \d+ paragraphs skipped/);
    expect(body).toContain(CHINESE_LIFTS);
    expect(body.length).toBeLessThanOrEqual(BUDGET);
    // It sits past the first part: found by its words, not by reading from the start.
    const first = split(await fetchUrl({ url: `${base}/zh-stations`, part: 1 }));
    expect(first.body).not.toContain(CHINESE_LIFTS);
  });

  it('the GBK page of the corpus, at a tight budget: the paragraph about lifts', async () => {
    const tight = { tool: { maxChars: 200 } };
    const { body } = split(await fetchUrl({ url: `${base}/${gbk.name}`, focus: '无障碍电梯' }, tight));
    expect(body).toContain('三号线二期各车站均设置了无障碍电梯和母婴室');
    const other = split(await fetchUrl({ url: `${base}/${gbk.name}`, focus: '总投资多少亿元' }, tight));
    expect(other.body).toContain('总投资约一百四十二亿元');
    expect(other.body).not.toContain('无障碍电梯');
  });
});

describe("the page budget follows the model's context window", () => {
  /** fetch_url as Scout builds it from its settings, reading the long article without a focus. */
  async function bodyWith(windowTokens: number): Promise<string> {
    const env = { FETCH_URL_POLICY: 'open', LLM_CONTEXT_WINDOW: windowTokens, WORKSPACE_SEARCH: 'off' };
    const tools = createDefaultTools({
      search: { available: false } as never,
      config: { env } as never,
      fetchUrl: { isAllowedAddress: (address) => address === '127.0.0.1' },
    });
    const registry = createToolRegistry(tools, { logger: silentLogger });
    const context: ToolContext = { sessionKey: 's', signal: new AbortController().signal };
    return split(
      await registry.execute('fetch_url', JSON.stringify({ url: `${base}/${long.name}` }), context),
    ).body;
  }

  it('the default window (64,000 tokens) gets FETCH_MAX_CHARS; an 8,000-token window a quarter of it', async () => {
    expect((await wholeText(long)).length).toBeGreaterThan(FETCH_MAX_CHARS);
    const roomy = await bodyWith(64_000);
    expect(roomy.length).toBeLessThanOrEqual(FETCH_MAX_CHARS);
    expect(roomy.length).toBeGreaterThan(FETCH_MAX_CHARS * 0.9);
    const small = await bodyWith(8_000);
    expect(small.length).toBeLessThanOrEqual(8_000);
    expect(small.length).toBeGreaterThan(8_000 * 0.85);
  });
});
