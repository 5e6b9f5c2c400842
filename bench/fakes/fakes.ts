/**
 * The three fakes a benchmark needs — LLM, search, Slack Web API — started together, with a
 * snapshot that reduces what they recorded to plain data (it crosses a process boundary when the
 * fakes run in their own process, which keeps their CPU out of Scout's measurements).
 */
import { startFakeSlackApi } from '../../test/helpers/fake-slack-api.js';
import { ANSWER_MARKER, END_MARKER, type FakeLlmSpeed, type LlmRecord, startFakeLlm } from './fake-llm.js';
import { type SearchRecord, startFakeSearch } from './fake-search.js';

export const BENCH_BOT_USER = 'U00FAKEBOT01';

export interface FakesConfig {
  speed: FakeLlmSpeed;
  searchLatencyMs: number;
}

export interface FakesInfo {
  llmBaseUrl: string;
  searchUrl: string;
  slackUrl: string;
}

/** One Web API call as the benchmark needs it. */
export interface SlackCall {
  method: string;
  /** `Date.now()` at the fake when the call arrived. */
  at: number;
  /** The thread the call wrote to (`channel:thread_ts`), where it has one. */
  thread?: string;
  /** The message it created or changed (`channel:ts`). */
  message?: string;
  /** Creates a message (post/startStream) rather than editing one. */
  creates: boolean;
  /** Carries the first word of an answer / the last word of an answer. */
  hasAnswer: boolean;
  hasEnd: boolean;
  ok: boolean;
}

export interface FakesSnapshot {
  llm: LlmRecord[];
  search: SearchRecord[];
  slack: SlackCall[];
  violations: string[];
}

export interface Fakes extends FakesInfo {
  configure(config: FakesConfig): void;
  snapshot(): FakesSnapshot;
  reset(): void;
  close(): Promise<void>;
}

const CREATE_METHODS = new Set(['chat.postMessage', 'chat.startStream']);

export async function startFakes(config: FakesConfig): Promise<Fakes> {
  const llm = await startFakeLlm(config.speed);
  const search = await startFakeSearch(config.searchLatencyMs);
  const slack = await startFakeSlackApi({ botUserId: BENCH_BOT_USER });

  const summarize = (): SlackCall[] =>
    slack.calls.map((c) => {
      const channel = String(c.args.channel ?? c.args.channel_id ?? '');
      const creates = CREATE_METHODS.has(c.method);
      const ts = creates ? c.response.ts : c.args.ts;
      const message = ts ? `${channel}:${ts}` : undefined;
      const threadTs = c.args.thread_ts ?? (message ? slack.messages.get(message)?.threadTs : undefined);
      const json = JSON.stringify(c.args);
      return {
        method: c.method,
        at: c.at,
        ...(threadTs ? { thread: `${channel}:${threadTs}` } : {}),
        ...(message ? { message } : {}),
        creates,
        hasAnswer: json.includes(ANSWER_MARKER),
        hasEnd: json.includes(END_MARKER),
        ok: c.response.ok === true,
      };
    });

  return {
    llmBaseUrl: llm.baseUrl,
    searchUrl: search.url,
    slackUrl: slack.url,
    configure(next) {
      llm.speed = next.speed;
      search.latencyMs = next.searchLatencyMs;
    },
    snapshot: () => ({
      llm: llm.records,
      search: search.records,
      slack: summarize(),
      violations: slack.violations.map((v) => `${v.method}: ${v.error} ${v.detail}`),
    }),
    reset() {
      llm.records = [];
      search.records = [];
      slack.calls.length = 0;
      slack.violations.length = 0;
      slack.messages.clear();
    },
    async close() {
      await Promise.all([llm.close(), search.close(), slack.close()]);
    },
  };
}
