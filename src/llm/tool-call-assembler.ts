/**
 * Assembles streamed tool-call fragments (`delta.tool_calls[{index, id?, function:{name?, arguments}}]`)
 * into whole calls, merging by index. Some servers repeat the id and name in every fragment, so
 * those are set once, never concatenated; Gemini sends id "" (we make one) and attaches
 * `extra_content` that must be sent back (kept in providerMetadata).
 */
import { randomUUID } from 'node:crypto';
import type { ToolCall } from './types.js';

interface Pending {
  id: string;
  name: string;
  arguments: string;
  extra?: unknown;
}

export interface ToolCallDelta {
  index?: unknown;
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown } | null;
  extra_content?: unknown;
}

export function generateToolCallId(): string {
  return `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
}

export class ToolCallAssembler {
  private readonly calls = new Map<number, Pending>();

  get size(): number {
    return this.calls.size;
  }

  push(delta: ToolCallDelta, position: number): void {
    const index = this.indexFor(delta, position);
    let call = this.calls.get(index);
    if (!call) {
      call = { id: '', name: '', arguments: '' };
      this.calls.set(index, call);
    }
    if (typeof delta.id === 'string' && delta.id && !call.id) call.id = delta.id;
    const name = delta.function?.name;
    if (typeof name === 'string' && name) {
      if (!call.name || name.startsWith(call.name)) call.name = name;
      else if (!call.name.endsWith(name)) call.name += name; // a name split across fragments
    }
    const args = delta.function?.arguments;
    if (typeof args === 'string') call.arguments += args;
    else if (args && typeof args === 'object') call.arguments = JSON.stringify(args);
    if (delta.extra_content !== undefined) call.extra = delta.extra_content;
  }

  /** Where a fragment belongs. Without an index (some OpenAI-compatible servers) a new id starts a new call. */
  private indexFor(delta: ToolCallDelta, position: number): number {
    if (typeof delta.index === 'number') return delta.index;
    const keys = [...this.calls.keys()];
    const next = keys.length > 0 ? Math.max(...keys) + 1 : 0;
    const id = typeof delta.id === 'string' ? delta.id : '';
    if (id) return [...this.calls.entries()].find(([, c]) => c.id === id)?.[0] ?? next;
    return position > 0 || keys.length === 0 ? next : next - 1;
  }

  /** The finished calls in index order; empty arguments become "{}". */
  finish(): ToolCall[] {
    return [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .filter(([, c]) => c.name !== '')
      .map(([, c]) => {
        const call: ToolCall = {
          id: c.id || generateToolCallId(),
          name: c.name,
          arguments: c.arguments.trim() === '' ? '{}' : c.arguments,
        };
        if (c.extra !== undefined) call.providerMetadata = { extra_content: c.extra };
        return call;
      });
  }
}
