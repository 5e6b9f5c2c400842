import { describe, expect, it } from 'vitest';
import { STRINGS } from '../../src/i18n/strings.js';
import { t } from '../../src/i18n/translate.js';
import { STATUS_ICON } from '../../src/render/icons.js';
import { foldEvent, emptyView } from '../../src/render/view.js';
import {
  HEADLINE_MAX_CHARS,
  renderViewAsText,
  stepHeadline,
  stepLabel,
  tailForPreview,
  truncateForPreview,
} from '../../src/render/step-text.js';

describe('truncateForPreview', () => {
  it('leaves short text alone', () => {
    expect(truncateForPreview('short text', 20)).toBe('short text');
  });

  it('cuts at a word boundary and adds an ellipsis', () => {
    const out = truncateForPreview('The quick brown fox jumps over the lazy dog', 20);
    expect(out).toBe('The quick brown fox…');
    expect(out.length).toBeLessThanOrEqual(20);
  });

  it('cuts text without spaces where it must, never splitting an emoji', () => {
    const out = truncateForPreview('这是一个没有空格的很长的中文句子😀😀😀', 19);
    expect(out.length).toBeLessThanOrEqual(19);
    expect(out.endsWith('…')).toBe(true);
    expect(out).not.toMatch(/[\ud800-\udbff]…$/);
  });

  it('tailForPreview keeps the end of a streaming text', () => {
    const out = tailForPreview('one two three four five six seven eight nine ten', 20);
    expect(out.length).toBeLessThanOrEqual(20);
    expect(out.startsWith('…')).toBe(true);
    expect(out.endsWith('nine ten')).toBe(true);
  });
});

describe('stepHeadline', () => {
  it('puts the status icon, then the kind icon, before a one-line title', () => {
    expect(stepHeadline({ kind: 'search', status: 'running', title: 'Searching:\n"rust async"' })).toBe(
      '⏳ 🔍 Searching: "rust async"',
    );
    for (const [status, icon] of Object.entries(STATUS_ICON)) {
      if (status === 'info') continue;
      expect(
        stepHeadline({ kind: 'plan-step', status: status as keyof typeof STATUS_ICON, title: 'x' }),
      ).toBe(`${icon} x`);
    }
    expect(STATUS_ICON).toMatchObject({
      running: '⏳',
      done: '✅',
      failed: '❌',
      skipped: '⏭️',
      info: 'ℹ️',
      pending: '🕓',
    });
  });

  it('an info step (notice, evaluation) shows only its kind icon', () => {
    expect(stepHeadline({ kind: 'notice', status: 'info', title: 'History trimmed' })).toBe(
      'ℹ️ History trimmed',
    );
    expect(stepHeadline({ kind: 'warning', status: 'info', title: 'Reached the limit' })).toBe(
      '⚠️ Reached the limit',
    );
    expect(stepHeadline({ kind: 'evaluation', status: 'info', title: 'Evaluating results' })).toBe(
      '📊 Evaluating results',
    );
  });

  it('a failed search shows one ❌, in English and Chinese, straight from the catalog', () => {
    for (const locale of ['en', 'zh'] as const) {
      const title = t(locale, 'step.search-failed', { query: 'q' });
      const headline = stepHeadline({ kind: 'search', status: 'failed', title });
      expect(headline).toBe(`❌ 🔍 ${title}`);
      expect(headline.match(/❌/g)).toHaveLength(1);
    }
  });

  it('a thinking step reads 💭 while it streams and 💡 once done', () => {
    expect(stepLabel({ kind: 'thinking', status: 'running', title: 'Thinking…' })).toBe('💭 Thinking…');
    expect(stepLabel({ kind: 'thinking', status: 'done', title: 'Thought process' })).toBe(
      '💡 Thought process',
    );
  });

  it('stays within the headline limit', () => {
    expect(
      stepHeadline({ kind: 'search', status: 'done', title: 'word '.repeat(100) }).length,
    ).toBeLessThanOrEqual(HEADLINE_MAX_CHARS);
    expect(
      stepHeadline({ kind: 'tool', status: 'done', title: 'word '.repeat(100) }, 40).length,
    ).toBeLessThanOrEqual(40);
  });
});

describe('the string catalog', () => {
  it('has every key in both languages', () => {
    expect(Object.keys(STRINGS.zh).sort()).toEqual(Object.keys(STRINGS.en).sort());
  });

  it('step titles and status lines carry no icons: the renderer adds them', () => {
    const icon = /^\p{Extended_Pictographic}/u;
    for (const locale of ['en', 'zh'] as const) {
      for (const [key, text] of Object.entries(STRINGS[locale])) {
        if (/^(step|status|agent|error)\.|^notice\./.test(key)) expect(text, key).not.toMatch(icon);
      }
    }
  });
});

describe('renderViewAsText', () => {
  function view() {
    const v = emptyView();
    foldEvent(v, { type: 'phase', role: 'function_call', label: 'deepseek/deepseek-chat' }, 'en');
    foldEvent(v, { type: 'step-start', id: 't', kind: 'thinking', title: 'Thinking' }, 'en');
    foldEvent(v, { type: 'step-update', id: 't', append: 'I should search for the release date.' }, 'en');
    foldEvent(v, { type: 'step-finish', id: 't', status: 'done', title: 'Thought for 2 s' }, 'en');
    foldEvent(v, { type: 'step-start', id: 's', kind: 'search', title: 'Searching "node 24 release"' }, 'en');
    foldEvent(
      v,
      {
        type: 'step-start',
        id: 'n',
        kind: 'notice',
        title: 'Search limit reached',
        status: 'info',
      },
      'en',
    );
    foldEvent(v, { type: 'step-finish', id: 'n', status: 'info', body: 'Used 5 of 5 searches.' }, 'en');
    return v;
  }

  it('shows collapsed steps as one line and open steps with their body', () => {
    expect(renderViewAsText(view(), { expanded: false })).toBe(
      [
        '*🔧 deepseek/deepseek-chat*',
        '✅ 💡 Thought for 2 s',
        '⏳ 🔍 Searching "node 24 release"',
        'ℹ️ Search limit reached',
        '> Used 5 of 5 searches.',
      ].join('\n'),
    );
  });

  it('expanded shows every body', () => {
    const text = renderViewAsText(view(), { expanded: true, header: false });
    expect(text).toBe(
      [
        '✅ 💡 Thought for 2 s',
        '> I should search for the release date.',
        '⏳ 🔍 Searching "node 24 release"',
        'ℹ️ Search limit reached',
        '> Used 5 of 5 searches.',
      ].join('\n'),
    );
  });
});
