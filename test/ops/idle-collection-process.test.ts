/**
 * The idle heap collection on the real process (src/ops/idle-memory.ts wired in main.ts), in Slack
 * HTTP mode against loopback fakes: with the start script's flags (`--expose-gc` among them) Scout
 * collects once its surfaces run, and again once a turn has ended and nothing ran for the idle time;
 * without the flag it never tries.
 */
import { describe, expect, it } from 'vitest';
import { textReply } from '../helpers/fake-openai-server.js';
import { startFlags } from '../helpers/start-command.js';
import { IDLE_COLLECT_AFTER_MS } from '../../src/ops/idle-memory.js';
import { scoutOnFakes } from './spawn-scout.js';

const COLLECTED = 'idle: heap collected';
const count = (text: string) => text.split(COLLECTED).length - 1;

describe('idle heap collection (real process)', () => {
  const fakes = scoutOnFakes();
  const env = () => fakes.env({ LOG_LEVEL: 'debug' });

  it('with the start flags: once after start-up, once more after a turn and the idle time', async () => {
    expect(startFlags).toContain('--expose-gc');
    const { llm, slack } = fakes;
    const s = await fakes.spawn(env(), startFlags);
    await slack.waitFor(() => count(s.output()) === 1, 10_000, 'the collection after start-up');

    // The reference time is taken as the model's last chunk is written, before the stream's
    // terminator: Scout's model call ends only once it reads [DONE] (or the body's end), so its turn
    // ends, and the idle timer starts, surely after this moment.
    let streamed: number | undefined;
    const reply = textReply('Answered.', { chunkDelayMs: 20 });
    reply.onWrite = (index) => {
      if (index === reply.chunks.length - 1) streamed = Date.now();
    };
    llm.enqueue(reply);
    expect((await s.dm('Hello', '1767377101.000001')).status).toBe(200);
    await slack.waitFor(() => llm.requests.length === 1, 10_000, 'the model call');
    await slack.waitFor(
      () => slack.callsTo('chat.stopStream').length + slack.callsTo('chat.update').length > 0,
      10_000,
      'the answer',
    );
    await slack.waitFor(
      () => count(s.output()) === 2,
      IDLE_COLLECT_AFTER_MS + 10_000,
      'the collection after the turn',
    );
    // Not before the idle time had passed since the turn's end (which came after `streamed`).
    expect(streamed).toBeDefined();
    expect(Date.now() - (streamed as number)).toBeGreaterThanOrEqual(IDLE_COLLECT_AFTER_MS);
  }, 60_000);

  it('without --expose-gc: no collection is attempted', async () => {
    const scout = await fakes.spawn(env());
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(scout.output()).toContain('surface started');
    expect(count(scout.output())).toBe(0);
  }, 30_000);
});
