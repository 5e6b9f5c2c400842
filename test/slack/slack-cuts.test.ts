/**
 * Slack cuts titles, bodies and fallback text with the renderer's own cut: whatever the model's text,
 * a cut never leaves half an emoji (a lone surrogate is not valid text) and stays within the limit.
 */
import { describe, expect, it } from 'vitest';
import { toTaskCard } from '../../adapters/slack/native-stream.js';
import { renderSteps } from '../../adapters/slack/render-blocks.js';
import { emptyView, foldEvent } from '../../src/render/view.js';

/** Whether a string holds no lone surrogate (half an emoji). */
function wellFormed(text: string): boolean {
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

/** Every string in a JSON value. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

describe('Slack cuts', () => {
  it('a title and a body of emoji are cut whole, within Slack’s limits', () => {
    for (let shift = 0; shift < 4; shift++) {
      const view = emptyView();
      const title = `${'x'.repeat(shift)}${'😀'.repeat(200)}`;
      foldEvent(view, { type: 'step-start', id: 's', kind: 'search', title, body: '🚀'.repeat(5_000) }, 'en');
      foldEvent(view, { type: 'step-finish', id: 's', status: 'done', collapse: false }, 'en');
      for (const containers of [true, false]) {
        const payload = renderSteps(view, { locale: 'en', conversationId: 'c', containers, expanded: true });
        for (const text of strings(payload)) expect(wellFormed(text), text.slice(-8)).toBe(true);
      }
      const task = toTaskCard(view.steps[0]!);
      expect(wellFormed(task.title)).toBe(true);
      expect(task.title.length).toBeLessThanOrEqual(150);
      expect(wellFormed(task.details ?? '')).toBe(true);
    }
  });
});
