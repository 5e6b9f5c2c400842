/**
 * A recording fake of a chat platform's post/edit API: messages by id, every call with its start
 * and end time, and the highest number of calls in flight at once. Latency and failures are
 * scripted; time comes from (fake) timers.
 */
export interface Call {
  kind: 'post' | 'edit';
  ref: number;
  payload: string;
  start: number;
  end?: number;
  ok?: boolean;
}

export interface FakePlatformOptions {
  latencyMs?: number;
  /** Return an error to make the n-th call (0-based) fail. */
  failCall?: (index: number, call: Call) => unknown;
}

export function fakePlatform(options: FakePlatformOptions = {}) {
  const messages = new Map<number, string>();
  const calls: Call[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let nextRef = 1;

  async function run(call: Call, apply: () => void): Promise<void> {
    const index = calls.length;
    calls.push(call);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      if (options.latencyMs) await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
      const error = options.failCall?.(index, call);
      if (error) throw error;
      apply();
      call.ok = true;
    } catch (error) {
      call.ok = false;
      throw error;
    } finally {
      call.end = Date.now();
      inFlight--;
    }
  }

  return {
    messages,
    calls,
    get maxInFlight() {
      return maxInFlight;
    },
    post: async (payload: string): Promise<number> => {
      const ref = nextRef++;
      await run({ kind: 'post', ref, payload, start: Date.now() }, () => messages.set(ref, payload));
      return ref;
    },
    edit: async (ref: number, payload: string): Promise<void> => {
      await run({ kind: 'edit', ref, payload, start: Date.now() }, () => {
        if (!messages.has(ref)) throw new Error(`message_not_found ${ref}`);
        messages.set(ref, payload);
      });
    },
    /** Messages in posting order. */
    ordered(): string[] {
      return [...messages.entries()].sort((a, b) => a[0] - b[0]).map(([, text]) => text);
    },
  };
}
