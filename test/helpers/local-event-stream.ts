/** `postEventStream` to a loopback test server, as the OpenAI driver calls it (`hold`: a batch window of the test's own). */
import { type EventStream, postEventStream } from '../../src/llm/openai/post-event-stream.js';
import type { HoldForWindow } from '../../src/llm/openai/batch-window.js';

export function postEventStreamTo(
  port: number,
  hold?: HoldForWindow,
  signal = new AbortController().signal,
): Promise<EventStream> {
  return postEventStream(
    `http://127.0.0.1:${port}/v1/chat/completions`,
    'sk-test',
    '{}',
    signal,
    ...(hold ? [hold] : []),
  );
}
