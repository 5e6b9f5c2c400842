import type { StepKind, StepStatus, Source, TurnEvent, TurnStats } from './events.js';
import { say } from '../i18n/say.js';
import type { Locale } from '../i18n/locale.js';
import { formatStatsFooter } from './format-stats.js';
import { ROLE_ICON } from './icons.js';

/** The platform-neutral picture of a turn. Surfaces render it; they never see events or chunks. */
export interface StepView {
  id: string;
  kind: StepKind;
  title: string;
  body: string;
  status: StepStatus;
  collapsed: boolean;
}

export interface TurnView {
  steps: StepView[];
  /** The answer so far (streamed), or the final linked Markdown once `answerFinal` is true. */
  answer: string;
  answerFinal: boolean;
  sources: Source[];
  /** Which model is working now, with its role's icon, e.g. "🔧 deepseek/deepseek-chat". */
  phase?: string;
  /** Transient status line ("Searching…"), null when idle. */
  status: string | null;
  /** The statistics line shown under the answer. */
  footer?: string;
  stats?: TurnStats;
  error?: string;
  /** The answer was shown but could not be written to the conversation's history (store failure). */
  notSaved?: boolean;
  /** The turn has ended (answer, error or cancel). */
  done: boolean;
  cancelled: boolean;
}

export function emptyView(): TurnView {
  return {
    steps: [],
    answer: '',
    answerFinal: false,
    sources: [],
    status: null,
    done: false,
    cancelled: false,
  };
}

/**
 * Folds one event into the view (mutates and returns it: a turn has one view and the fold runs for
 * every streamed token, so copying would be wasted work).
 */
export function foldEvent(view: TurnView, event: TurnEvent, locale: Locale): TurnView {
  switch (event.type) {
    case 'step-start': {
      const existing = view.steps.find((s) => s.id === event.id);
      const step: StepView = {
        id: event.id,
        kind: event.kind,
        title: say(locale, event.title),
        body: event.body === undefined ? '' : say(locale, event.body),
        status: event.status ?? 'running',
        collapsed: false,
      };
      if (existing) Object.assign(existing, step);
      else view.steps.push(step);
      break;
    }
    case 'step-update': {
      const step = view.steps.find((s) => s.id === event.id);
      if (!step) break;
      if (event.title !== undefined) step.title = say(locale, event.title);
      if (event.body !== undefined) step.body = say(locale, event.body);
      if (event.append) step.body += event.append;
      if (event.status) step.status = event.status;
      break;
    }
    case 'step-finish': {
      const step = view.steps.find((s) => s.id === event.id);
      if (!step) break;
      step.status = event.status;
      if (event.title !== undefined) step.title = say(locale, event.title);
      if (event.body !== undefined) step.body = say(locale, event.body);
      step.collapsed = event.collapse ?? (!staysOpen(step.kind) && step.kind !== 'plan');
      break;
    }
    case 'text-delta':
      if (!view.answerFinal) view.answer += event.text;
      break;
    case 'answer':
      view.answer = say(locale, event.text);
      view.answerFinal = true;
      view.sources = event.sources;
      break;
    case 'phase':
      view.phase = event.role ? `${ROLE_ICON[event.role]} ${event.label}` : event.label;
      break;
    case 'status':
      view.status = event.text === null ? null : say(locale, event.text);
      break;
    case 'stats':
      view.stats = event.stats;
      view.footer = formatStatsFooter(event.stats, locale);
      break;
    case 'error':
      view.error = say(locale, event.message);
      break;
  }
  return view;
}

/** Marks every step still running as failed/cancelled so no spinner is left behind. */
export function closeOpenSteps(view: TurnView, status: 'failed' | 'skipped' = 'failed'): void {
  for (const step of view.steps) {
    if (step.status === 'running' || step.status === 'pending') {
      step.status = status;
      step.collapsed = !staysOpen(step.kind);
    }
  }
}

/** Notices and warnings are read, not expanded: they stay open when they finish. */
function staysOpen(kind: StepKind): boolean {
  return kind === 'notice' || kind === 'warning';
}
