import { describe, expect, it } from 'vitest';
import { neutraliseMentions, toMrkdwn } from '../../adapters/slack/markdown.js';
import { renderAnswerChunk, renderSteps } from '../../adapters/slack/render-blocks.js';
import { emptyView, foldEvent } from '../../src/render/view.js';
import { visibleText } from './slack-harness.js';

describe('Slack text safety and mrkdwn', () => {
  it('defuses every mention form model output could use', () => {
    const out = neutraliseMentions(
      'Hi <!channel> <!here> <!everyone> @channel @here @everyone <@U123> <!subteam^S1>',
    );
    expect(out).not.toMatch(/<[!@]/);
    expect(out).not.toMatch(/(^|\s)@(channel|here|everyone)\b/);
    expect(out).toContain('Hi');
    expect(neutraliseMentions('mail me at bob@here.com')).toBe('mail me at bob@here.com');
  });

  it('converts Markdown to mrkdwn: links, bold, code, lists, escaping', () => {
    expect(toMrkdwn('see [the docs](https://x.test/a?b=1&c=2)')).toBe(
      'see <https://x.test/a?b=1&c=2|the docs>',
    );
    expect(toMrkdwn('**bold** and *it*')).toBe('*bold* and _it_');
    expect(toMrkdwn('- one\n- two')).toBe('• one\n• two');
    expect(toMrkdwn('a < b & c > d')).toBe('a &lt; b &amp; c &gt; d');
    expect(toMrkdwn('`<tag>` text')).toBe('`&lt;tag&gt;` text');
    expect(toMrkdwn('```js\nif (a < b) {}\n```')).toBe('```if (a &lt; b) {}\n```');
    expect(toMrkdwn('## Title')).toBe('*Title*');
  });
});

describe('Block Kit rendering limits', () => {
  it('keeps a turn with 80 long steps under 50 blocks and the size limits', () => {
    const view = emptyView();
    for (let i = 0; i < 80; i++) {
      foldEvent(
        view,
        {
          type: 'step-start',
          id: `s${i}`,
          kind: 'search',
          title: `Search ${'x'.repeat(300)}`,
        },
        'en',
      );
      foldEvent(view, { type: 'step-finish', id: `s${i}`, status: 'done', body: 'y'.repeat(5000) }, 'en');
    }
    foldEvent(view, { type: 'phase', label: '🔧 model' }, 'en');
    for (const containers of [true, false]) {
      const payload = renderSteps(view, {
        locale: 'en',
        conversationId: 'slack:T:C:1',
        containers,
        expanded: true,
      })!;
      expect(payload.blocks.length).toBeLessThanOrEqual(50);
      // Counted like the fake Slack API (and Slack's ~13,200-character message limit).
      expect(payload.text.length + visibleText(payload.blocks).length).toBeLessThan(13_200);
      for (const b of payload.blocks) {
        if (b.type === 'container') expect(b.title.text.length).toBeLessThanOrEqual(150);
        if (b.type === 'section') expect(b.text.text.length).toBeLessThanOrEqual(3000);
      }
    }
  });

  it('puts footer and feedback only under the final answer chunk and defuses mentions', () => {
    const running = renderAnswerChunk('Hello <!channel>', {
      locale: 'en',
      conversationId: 'c',
      final: false,
      feedback: true,
      footer: 'f',
      stop: true,
    });
    expect(JSON.stringify(running.blocks)).toContain('scout_stop');
    expect(JSON.stringify(running.blocks)).not.toContain('scout_feedback_up');
    const final = renderAnswerChunk('Hello', {
      locale: 'zh',
      conversationId: 'c',
      final: true,
      feedback: true,
      footer: '⏱ 1 s',
    });
    expect(JSON.stringify(final.blocks)).toContain('scout_feedback_down');
    expect(final.blocks.some((b) => b.type === 'context')).toBe(true);
  });
});
