/**
 * Every icon a turn shows, in one place: modes and the string catalog never carry them (a step
 * title is plain text), so no surface shows one twice ("❌ ❌ Search failed"). A leaf module — types
 * only from events.ts — so the view, the footer and the headlines can all use it without a cycle.
 */
import type { ModelStats, StepKind, StepStatus } from './events.js';

export const STATUS_ICON: Record<StepStatus, string> = {
  pending: '🕓',
  running: '⏳',
  done: '✅',
  failed: '❌',
  skipped: '⏭️',
  info: 'ℹ️',
};

/** What a step is, at a glance; a plan step is only its number and status. */
export const KIND_ICON: Record<StepKind, string> = {
  thinking: '💭',
  search: '🔍',
  'search-results': '📄',
  tool: '🛠️',
  evaluation: '📊',
  'model-switch': '🔄',
  notice: 'ℹ️',
  warning: '⚠️',
  plan: '📋',
  'plan-step': '',
};

/** Finished reasoning reads as a thought process (seed 004: "💭 思考中..." while it streams). */
export const THOUGHT_ICON = '💡';
/** Before an error message under the answer, and before the "Stopped." of a cancelled turn. */
export const ERROR_ICON = '⚠️';
export const STOPPED_ICON = '⏹️';

/** One icon per model role, so the phase label and the footer read at a glance which model did what. */
export const ROLE_ICON: Record<ModelStats['role'], string> = {
  function_call: '🔧',
  answer: '✍️',
  planner: '🗺️',
  chat: '💬',
};
