/**
 * Run as its own process by keep-alive.test.ts: two model streams (read the way the OpenAI driver
 * reads them, stopping at [DONE]) and one leanFetch call to the server at argv[2], then nothing. The
 * process must exit on its own although the pooled connection is still open.
 */
import { leanFetch } from '../../src/http/lean-fetch.js';
import { postEventStream } from '../../src/llm/openai/post-event-stream.js';

const url = `${process.argv[2]}/v1/chat/completions`;
for (let n = 0; n < 2; n++) {
  const stream = await postEventStream(url, 'sk-test', '{}', new AbortController().signal);
  for await (const batch of stream.events(() => {}))
    if (batch.some((data) => data.startsWith('[DONE]'))) break;
}
const answer = await leanFetch(url, { method: 'POST', body: '{}', redirect: 'error' });
await answer.text();
process.stdout.write('calls done\n');
