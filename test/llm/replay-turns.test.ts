/**
 * Real provider streams recorded by other projects (`../shared/replays`, never copied here) played
 * back byte for byte to a whole Scout turn: what the person sees (answer, error, footer) and how
 * many requests reached the provider.
 */
import { afterEach, expect, it } from 'vitest';
import type { TurnView } from '../../src/render/view.js';
import { describeWithShared, loadReplay } from '../helpers/fixtures.js';
import { type Replay, type ReplayServer, startReplayServer } from '../helpers/replay-server.js';
import { RecordingSink, startTestScout, type TestScout, testMessage } from '../helpers/scout-harness.js';

const KEY_AND_URL: Record<string, [string, string]> = {
  anthropic: ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL'],
  deepseek: ['DEEPSEEK_API_KEY', 'DEEPSEEK_BASE_URL'],
  gemini: ['GEMINI_API_KEY', 'GEMINI_BASE_URL'],
  openai: ['OPENAI_API_KEY', 'OPENAI_BASE_URL'],
  'openai-compatible': ['OPENAI_COMPATIBLE_API_KEY', 'OPENAI_COMPATIBLE_BASE_URL'],
};

let server: ReplayServer | undefined;
let scout: TestScout | undefined;
afterEach(async () => {
  await scout?.close();
  await server?.close();
  scout = undefined;
  server = undefined;
});

interface ReplayedTurn {
  view: TurnView;
  requests: number;
}

/** One chat turn asking the recording's question, the model served from the recording. */
async function chatTurn(name: string, env: Record<string, string> = {}): Promise<ReplayedTurn> {
  const replay = loadReplay<Replay>(name);
  server = await startReplayServer(replay.tool);
  const [keyVar, urlVar] = KEY_AND_URL[replay.provider]!;
  scout = await startTestScout({
    noSearch: true,
    env: {
      [keyVar]: 'sk-replay-key-0123456789',
      [urlVar]: server.origin,
      AGENT_FUNCTION_CALL_MODEL: `${replay.provider}/${replay.model}`,
      DEFAULT_MODE: 'chat',
      LLM_RETRY_BASE_MS: '1',
      ...env,
    },
  });
  const sink = new RecordingSink();
  await scout.scout.handleMessage(testMessage(replay.question ?? 'hi'), sink);
  return { view: sink.final!, requests: server.requests.length };
}

function thinkingText(view: TurnView): string {
  return view.steps
    .filter((s) => s.kind === 'thinking')
    .map((s) => s.body)
    .join('');
}

describeWithShared(
  'recorded streams, replayed to a chat turn',
  () => {
    it('reasoning-only stream cut at the token limit: says so with the limit and the command, thought kept', async () => {
      const { view, requests } = await chatTurn('deepseek-v4-reasoning-only-length', {
        DEFAULT_MAX_TOKENS: '2000',
      });
      expect(view.error).toMatch(/cut at max_tokens=2000/);
      expect(view.error).toMatch(/\/model tool deepseek\/deepseek-v4-pro max_tokens=4000/);
      expect(view.error).not.toMatch(/no output|rephrase/i);
      expect(thinkingText(view)).toContain('We need');
      expect(requests).toBe(1);
      // The usage came in the same chunk as the finish: the footer counts it.
      expect(view.footer).toMatch(/87/);
    });

    it('Anthropic refusal: says the provider refused, not "no output"', async () => {
      const { view, requests } = await chatTurn('anthropic-refusal');
      expect(view.error).toMatch(/refused/i);
      expect(view.error).not.toMatch(/no output|rephrase/i);
      expect(requests).toBe(1);
      expect(view.footer).toMatch(/18/);
    });

    it('Groq tool_use_failed inside the stream: one request, the provider’s code and message', async () => {
      const { view, requests } = await chatTurn('groq-midstream-error');
      expect(requests).toBe(1);
      expect(view.error).toMatch(/tool_use_failed/);
      expect(view.error).toMatch(/Tool call validation failed/);
      expect(view.error).not.toMatch(/overloaded/i);
    });

    it('Groq error as the first event (nothing shown yet): still one request, never "overloaded"', async () => {
      const { view, requests } = await chatTurn('groq-error-first-event');
      expect(requests).toBe(1);
      expect(view.error).toMatch(/HTTP 400 tool_use_failed/);
      expect(view.error).not.toMatch(/overloaded/i);
    });

    it('OpenRouter "Token limit reached" after a reasoning-only length finish: one request, its message, its usage', async () => {
      const { view, requests } = await chatTurn('openrouter-length-then-error');
      expect(requests).toBe(1);
      expect(view.error).toMatch(/Token limit reached/);
      expect(view.error).not.toMatch(/overloaded/i);
      // The usage arrived only in the error chunk: 43 in, 10 out.
      expect(view.stats?.models[0]).toMatchObject({ inputTokens: 43, outputTokens: 10 });
    });

    it('Anthropic overloaded after text was shown: the footer keeps the input tokens of message_start', async () => {
      const { view, requests } = await chatTurn('anthropic-overloaded-midstream');
      expect(requests).toBe(1);
      expect(view.error).toMatch(/overloaded/i);
      expect(view.stats?.models[0]?.inputTokens).toBe(43);
      expect(view.footer).toBeDefined();
    });

    it('Anthropic redacted_thinking then text: the answer shows, the encrypted block does not', async () => {
      const { view, requests } = await chatTurn('anthropic-redacted-thinking');
      expect(requests).toBe(1);
      expect(view.error).toBeUndefined();
      expect(view.answer.trim().length).toBeGreaterThan(0);
      const replay = loadReplay<Replay>('anthropic-redacted-thinking');
      const data = /"data":"([^"]{12})/.exec(replay.tool[0]!.body)?.[1];
      expect(data).toBeDefined();
      expect(JSON.stringify(view)).not.toContain(data!);
    });
  },
  'replays',
);
