/**
 * Icons come from the renderer only: the modes emit plain titles from the one catalog, and every
 * surface's step rendering (Slack blocks with and without containers, Slack task cards, Discord,
 * the terminal) shows a failed search with exactly one ❌ — the "❌ ❌ Search failed" — and
 * a warning with exactly one ⚠️.
 */
import { describe, expect, it } from 'vitest';
import { ConsoleSink } from '../../adapters/console/console-sink.js';
import { PLAIN, terminalPayloads } from '../../adapters/console/terminal-payloads.js';
import { stepsPayload } from '../../adapters/discord/render.js';
import { toTaskCard } from '../../adapters/slack/native-stream.js';
import { renderSteps } from '../../adapters/slack/render-blocks.js';
import { t } from '../../src/i18n/translate.js';
import type { TurnEvent } from '../../src/render/events.js';
import { emptyView, foldEvent, type TurnView } from '../../src/render/view.js';
import type { Locale } from '../../src/surface.js';

/** A failed search and a time-limit warning, emitted as agent mode emits them. */
function failedSearchTurn(locale: Locale): TurnView {
  const events: TurnEvent[] = [
    { type: 'step-start', id: 's1', kind: 'search', title: t(locale, 'step.searching', { query: 'rust' }) },
    {
      type: 'step-finish',
      id: 's1',
      status: 'failed',
      title: t(locale, 'step.search-failed', { query: 'rust' }),
      body: 'HTTP 500',
    },
    {
      type: 'step-start',
      id: 'w',
      kind: 'warning',
      title: t(locale, 'notice.timeout', { seconds: 60 }),
      status: 'info',
    },
    { type: 'step-finish', id: 'w', status: 'info', collapse: false },
    { type: 'error', message: t(locale, 'error.unexpected') },
  ];
  const view = emptyView();
  for (const event of events) foldEvent(view, event, 'en');
  view.done = true;
  return view;
}

function count(text: string, icon: string): number {
  return text.split(icon).length - 1;
}

/** Every text each surface shows for the steps, keyed by surface. */
function surfaces(view: TurnView, locale: Locale): Record<string, string> {
  const conversationId = 'C1';
  const slack = (containers: boolean) =>
    renderSteps(view, { locale, conversationId, containers, expanded: false })?.blocks ?? [];
  return {
    // A container's title is its headline (a step without a body repeats it as the required child).
    'slack containers': slack(true)
      .map((block) => (block as { title?: { text: string } }).title?.text ?? '')
      .join('\n'),
    'slack fallback': JSON.stringify(slack(false)),
    'slack task cards': JSON.stringify(view.steps.map((step) => toTaskCard(step).title)),
    discord: String(stepsPayload(view, { turnId: 't', expanded: false, locale, running: false }).content),
    terminal:
      terminalPayloads(PLAIN, locale)
        .steps(view, { stop: false, expanded: false, final: true })
        ?.lines.join('\n') ?? '',
  };
}

describe('step icons come from the renderer only', () => {
  for (const locale of ['en', 'zh'] as const) {
    it(`a failed search shows one ❌ and a warning one ⚠️ on every surface (${locale})`, () => {
      const view = failedSearchTurn(locale);
      const failed = t(locale, 'step.search-failed', { query: 'rust' });
      for (const [surface, text] of Object.entries(surfaces(view, locale))) {
        expect(text, surface).toContain(failed);
        expect(count(text, '❌'), surface).toBeLessThanOrEqual(1);
        expect(count(text, '🔍'), surface).toBe(1);
        expect(count(text, '⚠️'), surface).toBe(1);
      }
      // Where the renderer draws the status itself, the failure is that one ❌.
      for (const surface of ['slack containers', 'slack fallback', 'discord', 'terminal']) {
        expect(count(surfaces(view, locale)[surface]!, '❌'), surface).toBe(1);
      }
    });
  }

  it('the error under a failed answer has one icon, and a stopped turn says so without ⚠️', async () => {
    /** What a piped terminal prints for a finished turn. */
    const printed = async (view: TurnView) => {
      let out = '';
      await new ConsoleSink({ write: (s: string) => (out += s) }).done(view);
      return out;
    };
    expect(await printed(failedSearchTurn('en'))).toContain(`⚠️ ${t('en', 'error.unexpected')}`);
    const stopped = { ...emptyView(), done: true, cancelled: true, error: t('en', 'error.cancelled') };
    expect((await printed(stopped)).trim()).toBe('⏹️ Stopped.');
  });
});
