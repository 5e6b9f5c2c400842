/**
 * The buttons a turn shows, for every surface: which ones, their labels (from the catalog) and their
 * weight, and what a plan's or a tool call's choice shows in their place once made. An adapter only
 * turns a `Control` into its platform's button (Block Kit, Discord component) with its own ids.
 */
import type { StringKey } from '../i18n/strings.js';
import { t } from '../i18n/translate.js';
import type { Locale } from '../i18n/locale.js';
import type { ApprovalControls, PlanControls } from './renderer-options.js';

export type ControlId =
  | 'stop'
  | 'show-details'
  | 'hide-details'
  | 'feedback-up'
  | 'feedback-down'
  | 'run'
  | 'cancel'
  | 'approve'
  | 'deny';

/** How much a button stands out: the action a person most likely wants, or one that cannot be undone. */
export type ControlStyle = 'primary' | 'danger' | 'secondary';

export interface Control {
  id: ControlId;
  label: string;
  style: ControlStyle;
}

const CONTROLS: Record<ControlId, { label: StringKey; style: ControlStyle }> = {
  stop: { label: 'button.stop', style: 'danger' },
  'show-details': { label: 'button.show-details', style: 'secondary' },
  'hide-details': { label: 'button.hide-details', style: 'secondary' },
  'feedback-up': { label: 'button.feedback-up', style: 'secondary' },
  'feedback-down': { label: 'button.feedback-down', style: 'secondary' },
  run: { label: 'button.run-plan', style: 'primary' },
  cancel: { label: 'button.cancel-plan', style: 'secondary' },
  // A tool that asks first may change something: approving it is the weighty choice.
  approve: { label: 'button.approve-tool', style: 'danger' },
  deny: { label: 'button.deny-tool', style: 'secondary' },
};

/** The controls, in the order given, labelled in `locale`. */
export function controls(locale: Locale, ...ids: ControlId[]): Control[] {
  return ids.map((id) => ({ id, label: t(locale, CONTROLS[id].label), style: CONTROLS[id].style }));
}

/** The details toggle says what pressing it does. */
export function detailsToggle(expanded: boolean): ControlId {
  return expanded ? 'hide-details' : 'show-details';
}

/** A choice waiting for a press (its buttons), or made (the outcome shown where the buttons were). */
export interface Choice {
  buttons: Control[];
  outcome?: string;
}

export function planChoice(state: PlanControls, locale: Locale): Choice {
  if (state === 'choose') return { buttons: controls(locale, 'run', 'cancel') };
  if (state === 'run') return { buttons: [], outcome: t(locale, 'plan.running') };
  if (state === 'cancel') return { buttons: [], outcome: t(locale, 'plan.cancelled') };
  return { buttons: [] };
}

export function approvalChoice(state: ApprovalControls, locale: Locale): Choice {
  if (state === 'choose') return { buttons: controls(locale, 'approve', 'deny') };
  const outcome = t(locale, state === 'approved' ? 'tool-approval.approved' : 'tool-approval.denied');
  return { buttons: [], outcome };
}
