import { afterEach, describe, expect, it, vi } from 'vitest';
import { RenderFrame, ViewChanges } from '../../src/render/render-frame.js';
import { emptyView, foldEvent } from '../../src/render/view.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('RenderFrame', () => {
  it('renders growing text at most once per frame: the first at once, the latest at the frame end', async () => {
    vi.useFakeTimers();
    let renders = 0;
    const frame = new RenderFrame(() => renders++, 100);
    frame.request(false);
    await vi.advanceTimersByTimeAsync(0);
    expect(renders).toBe(1);
    for (let i = 0; i < 50; i++) frame.request(false);
    await vi.advanceTimersByTimeAsync(99);
    expect(renders).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(renders).toBe(2);
    await vi.advanceTimersByTimeAsync(500);
    expect(renders).toBe(2);
  });

  it('renders a visible change on the next tick even inside a frame', async () => {
    vi.useFakeTimers();
    let renders = 0;
    const frame = new RenderFrame(() => renders++, 100);
    frame.request(false);
    await vi.advanceTimersByTimeAsync(0);
    frame.request(false);
    frame.request(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(renders).toBe(2);
    await vi.advanceTimersByTimeAsync(200);
    expect(renders).toBe(2);
  });

  it('now() renders synchronously; after stop() nothing renders', async () => {
    vi.useFakeTimers();
    let renders = 0;
    const frame = new RenderFrame(() => renders++, 100);
    frame.now();
    expect(renders).toBe(1);
    frame.request(false);
    frame.stop();
    frame.request(true);
    await vi.advanceTimersByTimeAsync(500);
    expect(renders).toBe(1);
  });
});

describe('ViewChanges', () => {
  it('tells steps, status and the first answer text from text that merely grew', () => {
    const changes = new ViewChanges();
    const view = emptyView();
    expect(changes.visible(view)).toBe(false);
    foldEvent(view, { type: 'step-start', id: 's1', kind: 'search', title: 'Searching "x"' }, 'en');
    expect(changes.visible(view)).toBe(true);
    foldEvent(view, { type: 'step-update', id: 's1', append: 'more' }, 'en');
    expect(changes.visible(view)).toBe(false);
    foldEvent(view, { type: 'step-finish', id: 's1', status: 'done', title: 'Searched "x"' }, 'en');
    expect(changes.visible(view)).toBe(true);
    foldEvent(view, { type: 'status', text: 'Writing…' }, 'en');
    expect(changes.visible(view)).toBe(true);
    foldEvent(view, { type: 'text-delta', text: 'Hello' }, 'en');
    expect(changes.visible(view)).toBe(true);
    foldEvent(view, { type: 'text-delta', text: ' world' }, 'en');
    expect(changes.visible(view)).toBe(false);
    foldEvent(view, { type: 'answer', text: 'Hello world', sources: [] }, 'en');
    expect(changes.visible(view)).toBe(true);
  });
});
