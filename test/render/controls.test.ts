// biome-ignore-all lint/suspicious/noExplicitAny: payloads are read as open JSON
/**
 * One set of controls for every surface: a plan's Run / Cancel and a tool call's Approve / Deny show
 * the same buttons, in the same order and weight, on Slack and on Discord, and the same outcome
 * once chosen — in English and Chinese.
 */
import { describe, expect, it } from 'vitest';
import { approvalPayload, planPayload } from '../../adapters/discord/render.js';
import { renderApprovalPart, renderPlanPart } from '../../adapters/slack/render-blocks.js';
import type { ApprovalControls, PlanControls } from '../../src/render/renderer-options.js';

type Shown = { buttons: Array<{ label: string; style: string }>; text: string };

function slack(payload: { blocks: Array<Record<string, any>> }): Shown {
  const buttons = payload.blocks
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements)
    .map((e: any) => ({ label: e.text.text, style: e.style ?? 'secondary' }));
  const text = payload.blocks
    .flatMap((b) => (b.type === 'context' ? b.elements.map((e: any) => e.text) : (b.text?.text ?? [])))
    .join('\n');
  return { buttons, text };
}

function discord(payload: { content?: string | null; components?: readonly unknown[] }): Shown {
  const styles: Record<number, string> = { 1: 'primary', 2: 'secondary', 4: 'danger' };
  const buttons = (payload.components ?? [])
    .map((row: any) => row.toJSON())
    .flatMap((row: any) => row.components)
    .map((c: any) => ({ label: c.label, style: styles[c.style] ?? String(c.style) }));
  return { buttons, text: payload.content ?? '' };
}

describe('controls are the same on every surface', () => {
  for (const locale of ['en', 'zh'] as const) {
    it(`plan Run / Cancel and its outcome (${locale})`, () => {
      for (const state of ['choose', 'run', 'cancel', null] as PlanControls[]) {
        const onSlack = slack(renderPlanPart('1. Search', state, { locale, conversationId: 'c' }));
        const onDiscord = discord(planPayload('1. Search', state, 'turn', locale));
        expect(onDiscord.buttons, String(state)).toEqual(onSlack.buttons);
        expect(onSlack.buttons.length > 0, String(state)).toBe(state === 'choose');
        const outcome = onDiscord.text.split('\n').slice(1).join('\n');
        if (outcome) expect(onSlack.text).toContain(outcome);
        expect(Boolean(outcome), String(state)).toBe(state === 'run' || state === 'cancel');
      }
    });

    it(`tool Approve / Deny and its outcome (${locale})`, () => {
      for (const state of ['choose', 'approved', 'denied'] as ApprovalControls[]) {
        const onSlack = slack(renderApprovalPart('`notes__delete`', state, { locale, conversationId: 'c' }));
        const onDiscord = discord(approvalPayload('`notes__delete`', state, 'turn', locale));
        expect(onDiscord.buttons, state).toEqual(onSlack.buttons);
        if (state === 'choose') expect(onSlack.buttons.map((b) => b.style)).toEqual(['danger', 'secondary']);
        else expect(onSlack.text).toContain(onDiscord.text.split('\n').at(-1));
      }
    });
  }
});
