/**
 * What a screen reader hears beyond the transcript itself: step titles as they start and the answer
 * once it is final, never every streamed token (that would be a stream of interruptions).
 */
import { h } from './dom.js';

const MAX_SPOKEN = 1200;
let region: HTMLElement | undefined;

export function announcerElement(): HTMLElement {
  region ??= h('div', {
    class: 'sr-only',
    'aria-live': 'polite',
    'aria-atomic': 'true',
    'data-announcer': '',
  });
  return region;
}

/** Replaces what the region holds; a polite region reads it when the reader is idle. */
export function announce(text: string): void {
  const el = announcerElement();
  const trimmed = text.trim();
  if (!trimmed) return;
  el.textContent = trimmed.length > MAX_SPOKEN ? `${trimmed.slice(0, MAX_SPOKEN)}…` : trimmed;
}
