/**
 * An `app_mention` (or `message`) event that arrives without a channel — a malformed or hostile
 * delivery — is ignored: one warning that names the event, never its text, and no TypeError logged
 * as a failed event, no model request and no Slack call.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createSlackSurface, type SlackSurface } from '../../adapters/slack/slack-surface.js';
import { type FakeSlackApi, postSigned, startFakeSlackApi } from '../helpers/fake-slack-api.js';
import { startTestScout, type TestScout } from '../helpers/scout-harness.js';

const SECRET = 'test-signing-secret';
const BOT = 'U00FAKEBOT01';
const TEXT = `<@${BOT}> what is the secret launch date of project ORCHID?`;

let running: { slack: FakeSlackApi; h: TestScout; surface: SlackSurface } | undefined;
afterEach(async () => {
  if (!running) return;
  await running.surface.idle();
  await running.surface.stop();
  await running.h.close();
  await running.slack.close();
  running = undefined;
});

async function start(lines: string[]) {
  const slack = await startFakeSlackApi({ botUserId: BOT });
  const h = await startTestScout({
    env: { SLACK_BOT_TOKEN: 'xoxb-test-token', SLACK_SIGNING_SECRET: SECRET, SLACK_API_URL: slack.url },
  });
  const surface = createSlackSurface({
    core: h.scout,
    config: h.config,
    logger: pino({ level: 'debug' }, { write: (line: string) => lines.push(line) }),
    stores: h.stores,
    port: 0,
    nativeStreaming: false,
  });
  await surface.start();
  running = { slack, h, surface };
  return running;
}

const envelope = (event: Record<string, unknown>, id: string) =>
  JSON.stringify({
    token: 'x',
    team_id: 'T00FAKE00AA',
    api_app_id: 'A00FAKEAPP01',
    type: 'event_callback',
    event_id: id,
    event_time: 1,
    authorizations: [{ team_id: 'T00FAKE00AA', user_id: BOT, is_bot: true }],
    event,
  });

describe('Slack events without a channel', () => {
  it.each(['app_mention', 'message'])(
    '%s without a channel: ignored with a warning that carries no text',
    async (type) => {
      const lines: string[] = [];
      const { slack, h, surface } = await start(lines);
      const event = {
        type,
        user: 'U00FAKEUSER1',
        text: TEXT,
        ts: '1712345678.000100',
        event_ts: '1712345678.000100',
      };
      const res = await postSigned(
        `http://127.0.0.1:${surface.port}/slack/events`,
        envelope(event, `EvNoChannel${type}`),
        SECRET,
      );
      expect(res.status).toBe(200);
      await surface.idle();
      const logged = lines.map((line) => JSON.parse(line) as { level: number; msg: string });
      expect(logged.filter((l) => l.level >= 50)).toEqual([]);
      expect(lines.join('\n')).not.toMatch(/TypeError|startsWith/);
      const warning = logged.filter((l) => l.level === 40 && /without a channel/.test(l.msg));
      expect(warning).toHaveLength(1);
      expect(lines.join('\n')).not.toContain('ORCHID');
      expect(h.llm.requests).toHaveLength(0);
      expect(slack.calls.filter((c) => /^chat\./.test(c.method))).toEqual([]);
    },
  );
});
