import { describe, expect, it } from 'vitest';
import { htmlToText, PageTooComplexError } from '../../src/tools/html-to-text.js';
import { HOSTILE_PAGES, NORMAL_PAGE } from '../helpers/hostile-pages.js';
import { startStallMeter } from '../helpers/stall-meter.js';

describe('htmlToText', () => {
  it('keeps readable text and the title, drops scripts, styles and hidden parts', async () => {
    const page = await htmlToText(
      '<html><head><title>Hello &amp; welcome</title><style>body{color:red}</style></head>' +
        '<body><script>alert("x")</script><h1>Heading</h1><p>First   paragraph.</p>' +
        '<p>Second <b>bold</b> .</p><svg><text>drawn</text></svg><template>later</template>' +
        '<pre>line 1\nline 2</pre><p>caf&eacute; &#x263A; &lt;tag&gt;</p></body></html>',
    );
    expect(page.title).toBe('Hello & welcome');
    expect(page.text).toBe('Heading\n\nFirst paragraph.\n\nSecond bold.\n\nline 1\nline 2\n\ncafé ☺ <tag>');
  });

  it('an unclosed script or comment hides the rest of the page, as in a browser', async () => {
    expect((await htmlToText('<p>Before</p><script>var x = "<p>not text</p>')).text).toBe('Before');
    expect((await htmlToText('<p>Before</p><!-- <p>not text</p>')).text).toBe('Before');
  });

  it('stops collecting once there is far more text than the caller keeps', async () => {
    const page = await htmlToText(NORMAL_PAGE, { maxChars: 1_000 });
    expect(page.text.length).toBeGreaterThan(1_000);
    expect(page.text.length).toBeLessThan(20_000);
  });

  it('gives up with "too complex" past its CPU budget', async () => {
    await expect(
      htmlToText(HOSTILE_PAGES['deeply nested tags'] ?? '', { budgetMs: 0, sliceMs: 0 }),
    ).rejects.toThrow(PageTooComplexError);
  });

  it('converts every 512 KB hostile page while the event loop keeps ticking', async () => {
    // The other conversations on this thread must never wait more than 200 ms because of our work.
    const meter = startStallMeter();
    let worstStall: number;
    try {
      for (const [kind, html] of Object.entries(HOSTILE_PAGES)) {
        const page = await htmlToText(html, { maxChars: 8_000 });
        expect(typeof page.text, kind).toBe('string');
      }
      expect((await htmlToText(HOSTILE_PAGES['unclosed script'] ?? '')).text).toBe('Before');
    } finally {
      worstStall = meter.stop();
    }
    expect(worstStall).toBeLessThan(200);
  });
});

describe('htmlToText after deep nesting', () => {
  it('keeps the text that follows 100k nested blocks (their line breaks do not fill the limit)', async () => {
    const html = `<p>before</p>${'<div>'.repeat(100_000)}after the storm${'</div>'.repeat(100_000)}`;
    const page = await htmlToText(html, { maxChars: 8_000 });
    expect(page.text).toBe('before\n\nafter the storm');
  });
});
