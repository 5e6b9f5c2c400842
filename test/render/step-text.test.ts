import { describe, expect, it } from 'vitest';
import { foldEvent, emptyView } from '../../src/render/view.js';
import {
  HEADLINE_MAX_CHARS,
  renderViewAsText,
  STATUS_ICON,
  stepHeadline,
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
  it('puts the status icon before a one-line title', () => {
    expect(stepHeadline({ status: 'running', title: 'Searching\n"rust async"' })).toBe(
      '⏳ Searching "rust async"',
    );
    for (const [status, icon] of Object.entries(STATUS_ICON)) {
      expect(stepHeadline({ status: status as keyof typeof STATUS_ICON, title: 'x' })).toBe(`${icon} x`);
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

  it('stays within the headline limit', () => {
    expect(stepHeadline({ status: 'done', title: 'word '.repeat(100) }).length).toBeLessThanOrEqual(
      HEADLINE_MAX_CHARS,
    );
  });
});

describe('renderViewAsText', () => {
  function view() {
    const v = emptyView();
    foldEvent(v, { type: 'phase', label: '🔧 deepseek/deepseek-chat' });
    foldEvent(v, { type: 'step-start', id: 't', kind: 'thinking', title: 'Thinking' });
    foldEvent(v, { type: 'step-update', id: 't', append: 'I should search for the release date.' });
    foldEvent(v, { type: 'step-finish', id: 't', status: 'done', title: 'Thought for 2 s' });
    foldEvent(v, { type: 'step-start', id: 's', kind: 'search', title: 'Searching "node 24 release"' });
    foldEvent(v, {
      type: 'step-start',
      id: 'n',
      kind: 'notice',
      title: 'Search limit reached',
      status: 'info',
    });
    foldEvent(v, { type: 'step-finish', id: 'n', status: 'info', body: 'Used 5 of 5 searches.' });
    return v;
  }

  it('shows collapsed steps as one line and open steps with their body', () => {
    expect(renderViewAsText(view(), { expanded: false })).toBe(
      [
        '*🔧 deepseek/deepseek-chat*',
        '✅ Thought for 2 s',
        '⏳ Searching "node 24 release"',
        'ℹ️ Search limit reached',
        '> Used 5 of 5 searches.',
      ].join('\n'),
    );
  });

  it('expanded shows every body', () => {
    const text = renderViewAsText(view(), { expanded: true, header: false });
    expect(text).toBe(
      [
        '✅ Thought for 2 s',
        '> I should search for the release date.',
        '⏳ Searching "node 24 release"',
        'ℹ️ Search limit reached',
        '> Used 5 of 5 searches.',
      ].join('\n'),
    );
  });
});
