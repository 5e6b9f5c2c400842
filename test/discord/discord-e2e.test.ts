/**
 * End to end: the real core (scout-harness: scripted OpenAI-compatible LLM, fake search, memory
 * store) behind the real Discord surface, driven through the fake Discord gateway and REST API.
 */
import { afterEach, expect, it } from 'vitest';
import { describeWithShared } from '../helpers/fixtures.js';
import { textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import {
  closeE2E,
  dmMessage,
  type E2E,
  finishedIn,
  fixtureInteraction,
  fixtureMessage,
  meta,
  SENDING_ROUTES,
  slashCommand,
  startE2E,
} from './discord-test-kit.js';

let env: E2E | undefined;
afterEach(async () => {
  await closeE2E(env);
  env = undefined;
});

const finished = (e: E2E, channelId: string) => finishedIn(e, channelId);

/** The answer text as the user reads it: every message after the steps message, joined. */
function answerText(e: E2E, channelId: string): string {
  return e.fake
    .messagesIn(channelId)
    .slice(1)
    .map((m) => m.content)
    .join('\n');
}

// biome-ignore lint/suspicious/noExplicitAny: request bodies are arbitrary JSON
const userTexts = (body: any): string[] =>
  body.messages.filter((m: { role: string }) => m.role === 'user').map((m: { content: string }) => m.content);

describeWithShared('Discord end to end with the real core', () => {
  it('a mention gets a streamed answer in a new thread, and a follow-up there continues the conversation', async () => {
    env = await startE2E();
    env.harness.llm.enqueue(
      textReply('Love is patient; love is kind.'),
      textReply('It is from 1 Corinthians 13.'),
    );
    const mention = fixtureMessage('gatewayAIMention');
    env.fake.dispatch('MESSAGE_CREATE', mention);
    await finished(env, mention.id);
    expect(answerText(env, mention.id)).toContain('Love is patient; love is kind.');
    expect(userTexts(env.harness.llm.requests[0]!.body).at(-1)).toBe('AI What is love');

    const followUp = fixtureMessage('gatewayThreadNice', {
      channel_id: mention.id,
      content: 'Where is that from?',
    });
    env.fake.dispatch('MESSAGE_CREATE', followUp);
    await env.fake.waitFor(
      () => answerText(env!, mention.id).includes('1 Corinthians 13') || undefined,
      8000,
    );
    const second = env.harness.llm.requests[1]!.body;
    expect(userTexts(second)).toEqual(['AI What is love', 'Where is that from?']);
    expect(env.fake.violations).toEqual([]);
  });

  it('answers a DM', async () => {
    env = await startE2E();
    env.harness.llm.enqueue(textReply('Hi there, privately.'));
    const dm = dmMessage('hello');
    env.fake.dispatch('MESSAGE_CREATE', dm);
    await finished(env, dm.channel_id);
    expect(answerText(env, dm.channel_id)).toContain('Hi there, privately.');
  });

  it('a 5,000-character model answer arrives complete, each message under 2,000 characters, fences intact', async () => {
    env = await startE2E();
    const code = [
      '```python',
      ...Array.from({ length: 40 }, (_, i) => `print("row ${i}")  # keep ${i}`),
      '```',
    ].join('\n');
    const prose = (n: number) =>
      `Section ${n}. ${'The quick brown fox jumps over the lazy dog. '.repeat(10).trim()}`;
    const long = [prose(1), prose(2), code, prose(3), prose(4), code, prose(5), prose(6), prose(7)].join(
      '\n\n',
    );
    expect(long.length).toBeGreaterThan(5000);
    env.harness.llm.enqueue(textReply(long));
    const mention = fixtureMessage('gatewayMention');
    env.fake.dispatch('MESSAGE_CREATE', mention);
    await finished(env, mention.id);
    const answers = env.fake.messagesIn(mention.id).slice(1);
    expect(answers.length).toBeGreaterThanOrEqual(3);
    for (const m of answers) {
      expect(m.content.length).toBeLessThanOrEqual(2000);
      expect((m.content.match(/```/g) ?? []).length % 2).toBe(0);
    }
    const joined = answers.map((m) => m.content).join('\n');
    for (let i = 0; i < 40; i++) expect(joined).toContain(`print("row ${i}")  # keep ${i}`);
    for (let n = 1; n <= 7; n++) expect(joined).toContain(`Section ${n}.`);
    expect(env.fake.violations).toEqual([]);
  });

  it('model output with @everyone and a role mention pings no one', async () => {
    env = await startE2E();
    env.harness.llm.enqueue(textReply(`Attention @everyone and @here — <@&${meta.roleId}> please read.`));
    const mention = fixtureMessage('gatewayMention');
    env.fake.dispatch('MESSAGE_CREATE', mention);
    await finished(env, mention.id);
    expect(answerText(env, mention.id)).toContain('@everyone');
    const sending = env.fake.calls.filter((c) => SENDING_ROUTES.has(c.route));
    for (const call of sending) expect(call.allowedMentions, call.route).toEqual({ parse: [] });
    expect(env.fake.pings).toEqual([]);
  });

  it('a 429 on posting is waited out and the answer still arrives', async () => {
    env = await startE2E();
    env.harness.llm.enqueue(textReply('Rate limits are fine.'));
    env.fake.rateLimitOnce('POST /channels/:channel/messages', 0.1);
    env.fake.rateLimitOnce('PATCH /channels/:channel/messages/:message', 0.1);
    const mention = fixtureMessage('gatewayMention');
    env.fake.dispatch('MESSAGE_CREATE', mention);
    await finished(env, mention.id);
    expect(env.fake.calls.filter((c) => c.status === 429).length).toBeGreaterThanOrEqual(1);
    expect(answerText(env, mention.id)).toContain('Rate limits are fine.');
  });

  it('/mode agent is deferred, answered ephemerally and changes the channel', async () => {
    env = await startE2E();
    env.fake.interact(slashCommand('mode', [{ name: 'mode', type: 3, value: 'agent' }]));
    const edit = await env.fake.waitFor(
      () => env!.fake.callsTo('PATCH /webhooks/:application/:token/messages/@original')[0],
    );
    expect(env.fake.callsTo('POST /interactions/:interaction/:token/callback')[0]?.body).toEqual({
      type: 5,
      data: { flags: 64 },
    });
    expect(edit.body.content).toMatch(/agent/i);
    const settings = await env.harness.scout.getSettings(`discord:${meta.guildId}:${meta.channelId}`);
    expect(settings.mode).toBe('agent');
  });

  it('an agent turn shows its search in the steps message and Show details reveals the results', async () => {
    env = await startE2E({ DEFAULT_MODE: 'agent' });
    env.harness.llm.enqueue(
      toolCallReply([{ name: 'web_search', arguments: { query: 'rust async runtime' } }]),
    );
    env.harness.llm.fallback = textReply('Tokio is the usual choice.');
    const mention = fixtureMessage('gatewayMention', {
      content: `<@${meta.botId}> which rust async runtime?`,
    });
    env.fake.dispatch('MESSAGE_CREATE', mention);
    await finished(env, mention.id);
    const steps = env.fake.messagesIn(mention.id)[0]!;
    expect(steps.content).toContain('rust async runtime');
    expect(answerText(env, mention.id)).toContain('Tokio');
    expect(env.harness.search.requests.length).toBeGreaterThanOrEqual(1);
    expect(steps.content).not.toContain('Snippet 1 about rust async runtime');

    const toggle = steps.components[0].components.find((c: { custom_id: string }) =>
      c.custom_id.startsWith('scout_steps_toggle:'),
    );
    const f = fixtureInteraction('buttonClickHello');
    const click = env.fake.interact({
      ...f,
      channel_id: mention.id,
      channel: { ...f.channel, id: mention.id },
      message: { ...f.message, id: steps.id, channel_id: mention.id },
      data: { component_type: 2, custom_id: toggle.custom_id },
    });
    await env.fake.waitFor(() => env!.fake.calls.find((c) => c.path.includes(`/interactions/${click.id}/`)));
    expect(steps.content).toContain('Snippet 1 about rust async runtime');
    expect(steps.content.length).toBeLessThanOrEqual(2000);
    expect(env.fake.violations).toEqual([]);
  });
});
