/**
 * Chat mode with search on, in a conversation that already fills what the history may take of
 * LLM_CONTEXT_WINDOW: the history is fitted before the search runs, so the results must be fitted
 * after it. The fake model refuses, as OpenAI does, a request that passes its window; the turn must
 * still answer, with the lowest-ranked results left out and the kept ones numbered and cited as shown.
 */
import { describe, expect, it } from 'vitest';
import type { WorkspaceSearch } from '../../src/search/workspace-search.js';
import { chineseParagraph } from '../helpers/chinese-text.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { RecordingSink, startTestScout, testMessage } from '../helpers/scout-harness.js';
import { modelWithWindow, type SentMessage } from '../helpers/windowed-model.js';

const WINDOW = 8_000;
const QUESTION = '港口渡轮的最新时刻表是什么？';
/** The web results chat mode asks for, and the workspace messages the search tool keeps, at most. */
const RESULTS = 5;
const HITS = 8;

/** A workspace (as Slack's or Discord's surface gives one) whose every search finds HITS long messages. */
const workspace: WorkspaceSearch = {
  platform: 'Slack',
  places: 'public channels',
  async search() {
    return {
      places: 'public channels',
      hits: Array.from({ length: HITS }, (_, i) => ({
        text: Array.from({ length: 4 }, (_, k) => chineseParagraph(200 + i, k)).join(''),
        author: `同事${i + 1}`,
        channel: 'harbour',
        date: '2026-11-0' + (i + 1) + 'T09:00:00Z',
        permalink: `https://team.slack.test/archives/C0HARBOUR/p${1_700_000_000 + i}`,
      })),
    };
  },
};

describe('chat mode: search results within the context window', () => {
  it('a full Chinese conversation still answers: the last results are left out, the kept ones cited', async () => {
    const h = await startTestScout({
      env: {
        DEFAULT_MODE: 'chat',
        WORKSPACE_SEARCH: 'on',
        LLM_CONTEXT_WINDOW: String(WINDOW),
        // Sent as max_tokens: the provider refuses a prompt that leaves it less room than this.
        DEFAULT_MAX_TOKENS: '2000',
      },
    });
    try {
      const asked = (body: { messages: SentMessage[] }) => body.messages.at(-1)?.content ?? '';
      const window = modelWithWindow(h.llm, WINDOW, (body) =>
        asked(body).startsWith(QUESTION)
          ? textReply('最新时刻表见港务局公告[1]。')
          : // Earlier turns: long answers, so the history fills what it may take.
            textReply(Array.from({ length: 12 }, (_, i) => chineseParagraph(asked(body).length, i)).join('')),
      );
      for (let turn = 1; turn <= 4; turn++)
        await h.scout.handleMessage(testMessage(`第${turn}个问题：港口的情况如何？`), new RecordingSink());

      h.search.script(
        QUESTION,
        Array.from({ length: RESULTS }, (_, i) => ({
          title: `港务局公告 ${i + 1}`,
          url: `https://harbour.example/notice/${i + 1}`,
          snippet: chineseParagraph(100 + i, i).slice(0, 200),
        })),
      );
      await h.scout.runCommand('search', 'on', { channelId: 'test:C1', userId: 'U1' });
      const sink = new RecordingSink();
      await h.scout.handleMessage(testMessage(QUESTION, { workspaceSearch: workspace }), sink);

      console.log(
        'SIZES',
        window.sizes,
        (asked(h.llm.requests.at(-1)?.body).match(/URL:/g) ?? []).length,
        h.llm.requests.at(-1)?.body.messages.length,
      );
      expect(window.refused).toEqual([]);
      const last = h.llm.requests.at(-1)?.body as { messages: SentMessage[] };
      const sent = asked(last);
      expect(sent.startsWith(QUESTION)).toBe(true);
      // The web results went with the question, numbered first; the last workspace messages did not fit.
      expect(sent).toContain('[1] 港务局公告 1\nURL: https://harbour.example/notice/1');
      expect(sent).toContain(`https://harbour.example/notice/${RESULTS}`);
      expect(sent).toContain('https://team.slack.test/archives/C0HARBOUR/p1700000000');
      expect(sent).not.toContain(`https://team.slack.test/archives/C0HARBOUR/p${1_700_000_000 + HITS - 1}`);
      // The history was sent as fitted: more than the question alone was at stake.
      expect(last.messages.length).toBeGreaterThan(2);
      const answer = sink.final?.answer ?? '';
      expect(answer).toContain('最新时刻表见港务局公告');
      expect(JSON.stringify(sink.final)).toContain('https://harbour.example/notice/1');
    } finally {
      await h.close();
    }
  });
});
