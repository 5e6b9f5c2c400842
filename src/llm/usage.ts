/** Usage records: keeping the last known counts on a failure, and adding calls up. */
import type { LlmError } from '../errors.js';
import type { Usage } from './types.js';

/** Attaches the usage reported before a failure, so the footer and cost still count it. */
export function withUsage(error: LlmError, usage: Usage | undefined): LlmError {
  if (usage && !error.details.usage) error.details.usage = { ...usage };
  return error;
}
