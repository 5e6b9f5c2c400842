/**
 * The benchmark's peer: a minimal Slack bot on the Vercel Chat SDK (`chat` + `@chat-adapter/slack`,
 * in-memory state), answering every mention with a streamed OpenAI-compatible completion through
 * the same `openai` client Scout uses. It is what the Chat SDK's getting-started guide builds: no
 * history, no status, no Stop button, no statistics. Plain JavaScript, so it runs compiled like
 * Scout's `dist/` does. Configuration from the environment (as the bench's fakes need):
 * PORT, SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET, SLACK_API_URL, SLACK_BOT_USER_ID, OPENAI_API_KEY,
 * OPENAI_BASE_URL. Prints `listening <port>` once it accepts events.
 */
import { createServer } from 'node:http';
import { createSlackAdapter } from '@chat-adapter/slack';
import { createMemoryState } from '@chat-adapter/state-memory';
import { Chat } from 'chat';
import OpenAI from 'openai';

const env = process.env;
const openai = new OpenAI({ apiKey: env.OPENAI_API_KEY, baseURL: env.OPENAI_BASE_URL, maxRetries: 0 });

const bot = new Chat({
  userName: 'peer',
  adapters: {
    slack: createSlackAdapter({
      botToken: env.SLACK_BOT_TOKEN,
      signingSecret: env.SLACK_SIGNING_SECRET,
      apiUrl: env.SLACK_API_URL,
      botUserId: env.SLACK_BOT_USER_ID,
    }),
  },
  state: createMemoryState(),
  logger: 'silent',
});

async function* answer(text, signal) {
  const stream = await openai.chat.completions.create(
    { model: 'bench-model', stream: true, messages: [{ role: 'user', content: text }] },
    { signal },
  );
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta?.content;
    if (delta) yield delta;
  }
}

bot.onNewMention(async (thread, message) => {
  await thread.post(answer(message.text, thread.signal));
});

/** Node's request → the web `Request` the Chat SDK's webhook handler takes, and back. */
const server = createServer((req, res) => {
  handle(req, res).catch((err) => {
    process.stderr.write(`peer: ${err?.message ?? err}\n`);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  });
});

async function handle(req, res) {
  if (req.method !== 'POST') {
    res.writeHead(404).end();
    return;
  }
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
  }
  const request = new Request(`http://127.0.0.1${req.url}`, {
    method: req.method,
    headers,
    body: Buffer.concat(chunks),
  });
  const response = await bot.webhooks.slack(request, {
    waitUntil: (task) => {
      task.catch((err) => process.stderr.write(`peer: ${err?.message ?? err}\n`));
    },
  });
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}

server.listen(Number(env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
