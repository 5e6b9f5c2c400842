/**
 * A notice step: something the user should read (history trimmed, search not configured) or a
 * warning that the turn went short (a limit hit, a timeout, an answer cut). It starts and finishes
 * at once and stays open; the renderer gives it its icon from the kind.
 */
import type { UserText } from '../../i18n/phrase.js';
import type { TurnEvent } from '../../render/events.js';

export function emitNotice(
  emit: (event: TurnEvent) => void,
  id: string,
  text: UserText,
  kind: 'notice' | 'warning' = 'notice',
): void {
  emit({ type: 'step-start', id, kind, title: text, status: 'info' });
  emit({ type: 'step-finish', id, status: 'info', collapse: false });
}
