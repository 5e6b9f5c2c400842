/**
 * Whose reading a signal cancels: the conversation it belongs to, for the fair share of PDF reader
 * slots (pdf-text.ts). The tool registry marks each tool call's signal with its turn's conversation,
 * so fetch_url's PDFs — read through src/reader, which hands the PDF reader only the signal — are
 * counted per conversation like attachments.
 */
const owners = new WeakMap<AbortSignal, string>();

/** Marks `signal` as cancelling readings of `owner` (a conversation id). */
export function ownReadings(signal: AbortSignal, owner: string): void {
  owners.set(signal, owner);
}

/** The conversation `signal` was marked with, if any. */
export function readingOwner(signal: AbortSignal | undefined): string | undefined {
  return signal ? owners.get(signal) : undefined;
}
