/**
 * `/instructions` on Discord, through the real discord.js client against the fake REST + gateway:
 * registered with a free-text `text` option, answered ephemerally without pinging anyone, stored for
 * the channel, sent to the model on the next mention, and refused to non-admins under ADMIN_USERS.
 */
import { afterEach, expect, it } from 'vitest';
import { buildSlashCommands } from '../../adapters/discord/commands.js';
import { textReply } from '../helpers/fake-openai-server.js';
import { describeWithShared } from '../helpers/fixtures.js';
import { closeE2E, type E2E, fixtureMessage, meta, slashCommand, startE2E } from './discord-test-kit.js';

let env: E2E | undefined;
afterEach(async () => {
  await closeE2E(env);
  env = undefined;
});

const settingsKey = () => `discord:${meta.guildId}:${meta.channelId}`;

/** Runs `/instructions` (with the `text` option when given) and returns the ephemeral reply. */
async function instructions(e: E2E, value?: string): Promise<string> {
  const { token } = e.fake.interact(
    slashCommand('instructions', value === undefined ? [] : [{ name: 'text', type: 3, value }]),
  );
  return e.fake.waitFor(() => e.fake.originalResponse(token)?.content || undefined, 8000, 'the reply');
}

describeWithShared('Discord: /instructions', () => {
  it('registers /instructions with an optional free-text option', () => {
    const command = buildSlashCommands().find((c) => c.name === 'instructions');
    expect(command?.options).toEqual([expect.objectContaining({ name: 'text', type: 3, required: false })]);
    expect(command?.options?.[0]).not.toHaveProperty('choices');
  });

  it('sets, shows and clears them; the next mention’s system prompt carries them; no reply pings', async () => {
    env = await startE2E();
    const role = `<@&${meta.roleId}>`;
    const saved = await instructions(env, `Answer in French. Page ${role} and @everyone for outages.`);
    expect(saved).toContain('Instructions saved for this channel');
    expect((await env.harness.scout.getSettings(settingsKey())).instructions).toContain(role);
    const shown = await instructions(env);
    expect(shown).toContain('> Answer in French.');
    expect(shown).not.toContain(role);
    expect(shown).not.toContain('@everyone');
    expect(env.fake.pings).toEqual([]);

    env.harness.llm.enqueue(textReply('Bonjour !'));
    env.fake.dispatch('MESSAGE_CREATE', fixtureMessage('gatewayMention'));
    await env.fake.waitFor(
      () => env!.harness.llm.requests.length > 0 || undefined,
      8000,
      'the model request of the mention',
    );
    const body = env.harness.llm.requests[0]?.body as { messages: Array<{ role: string; content: string }> };
    expect(body.messages[0]?.role).toBe('system');
    expect(body.messages[0]?.content).toContain('<operator_instructions>\nAnswer in French.');

    expect(await instructions(env, 'clear')).toContain('were removed');
    expect((await env.harness.scout.getSettings(settingsKey())).instructions).toBeUndefined();
  });

  it('with ADMIN_USERS set, only an admin can change them', async () => {
    env = await startE2E({ ADMIN_USERS: 'U_SOMEONE_ELSE' });
    expect(await instructions(env, 'Answer like a pirate.')).toContain('Only Scout administrators');
    expect((await env.harness.scout.getSettings(settingsKey())).instructions).toBeUndefined();
    expect(await instructions(env)).toContain('No instructions are set for this channel');
  });
});
