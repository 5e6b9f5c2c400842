/**
 * Drops tool-call markup a model wrote as text (`<tool_call>{"name": …}</tool_call>`, as Qwen and
 * Hermes templates do when the server did not parse it into a call) so the user never sees it raw.
 * Works on streamed text: a chunk that may be the start of a tag is held back until the next one
 * says whether it is. A block never closed is dropped to the end of the stream.
 */
const TAGS = ['tool_call', 'function_call'] as const;
const OPENERS = TAGS.map((tag) => `<${tag}>`);

export class ToolMarkupFilter {
  private pending = '';
  /** The closing tag while inside a block, else undefined. */
  private closer: string | undefined;
  /** Blocks dropped so far (for the log). */
  dropped = 0;

  /** The visible part of `chunk`, possibly empty. */
  push(chunk: string): string {
    this.pending += chunk;
    // Nearly every chunk: no `<` anywhere, so no tag and nothing to hold back (runs for every token).
    if (!this.closer && !this.pending.includes('<')) {
      const out = this.pending;
      this.pending = '';
      return out;
    }
    let out = '';
    for (;;) {
      if (this.closer) {
        const end = this.pending.indexOf(this.closer);
        if (end < 0) {
          // Keep only what could be the start of the closing tag.
          this.pending = this.pending.slice(Math.max(0, this.pending.length - this.closer.length + 1));
          return out;
        }
        this.pending = this.pending.slice(end + this.closer.length);
        this.closer = undefined;
        this.dropped++;
        continue;
      }
      const found = OPENERS.map((opener) => ({ opener, at: this.pending.indexOf(opener) }))
        .filter((f) => f.at >= 0)
        .sort((a, b) => a.at - b.at)[0];
      if (found) {
        out += this.pending.slice(0, found.at);
        this.pending = this.pending.slice(found.at + found.opener.length);
        this.closer = `</${found.opener.slice(1)}`;
        continue;
      }
      const hold = heldBack(this.pending);
      out += this.pending.slice(0, this.pending.length - hold);
      this.pending = this.pending.slice(this.pending.length - hold);
      return out;
    }
  }

  /** What was held back at the end of the stream (an unclosed block is dropped). */
  end(): string {
    const rest = this.closer ? '' : this.pending;
    if (this.closer) this.dropped++;
    this.pending = '';
    this.closer = undefined;
    return rest;
  }
}

/** How many trailing characters could be the start of an opening tag. */
function heldBack(text: string): number {
  const lt = text.lastIndexOf('<');
  if (lt < 0) return 0;
  const tail = text.slice(lt);
  return OPENERS.some((opener) => opener.startsWith(tail)) ? tail.length : 0;
}
