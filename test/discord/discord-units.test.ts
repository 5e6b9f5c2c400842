import { describe, expect, it } from 'vitest';
import { describeWithShared } from '../helpers/fixtures.js';
import { buildSlashCommands } from '../../adapters/discord/commands.js';
import { channelKey, conversationKey, parseKey } from '../../adapters/discord/ids.js';
import { renderStepsText } from '../../adapters/discord/steps-text.js';
import { stripMention, threadName } from '../../adapters/discord/triggers.js';
import { COMMAND_NAMES } from '../../src/core/commands.js';
import { emptyView } from '../../src/render/view.js';
import { ConfirmingCore, fixtureMessage, pressButton, meta, startKit, type Kit } from './discord-test-kit.js';
import { afterEach } from 'vitest';

describe('Discord ids', () => {
  it('builds opaque channel and conversation ids and parses them back', () => {
    const thread = { guildId: 'G1', channelId: 'C1', threadId: 'T1' };
    expect(channelKey(thread)).toBe('discord:G1:C1');
    expect(conversationKey(thread)).toBe('discord:G1:T1');
    expect(channelKey({ channelId: 'D1' })).toBe('discord:dm:D1');
    expect(parseKey('discord:dm:D1')).toEqual({ channelId: 'D1' });
    expect(parseKey('discord:G1:T1')).toEqual({ guildId: 'G1', channelId: 'T1' });
    expect(parseKey('slack:T:C')).toBeUndefined();
  });
});

describeWithShared('Discord triggers helpers', () => {
  it('strips the bot mention (user and role forms) and keeps other mentions', () => {
    expect(stripMention(`<@${meta.botId}> AI What is love`, meta.botId)).toBe('AI What is love');
    expect(stripMention(`hey <@!${meta.botId}>  there <@123>`, meta.botId)).toBe('hey there <@123>');
    expect(stripMention(`<@&${meta.roleId}> AI Still there?`, meta.botId, [meta.roleId])).toBe(
      'AI Still there?',
    );
  });

  it('names threads from the first line of the question, 1–100 characters', () => {
    expect(threadName('What is love?\nmore')).toBe('What is love?');
    expect(threadName('   ')).toBe('Scout');
    expect(threadName('<@123>')).toBe('Scout');
    const long = threadName('x'.repeat(300));
    expect(long.length).toBe(100);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('Discord slash command definitions', () => {
  it('has one command per core command with valid names, descriptions and Chinese localisations', () => {
    const commands = buildSlashCommands();
    expect(commands.map((c) => c.name)).toEqual([...COMMAND_NAMES]);
    for (const command of commands) {
      expect(command.name).toMatch(/^[a-z0-9_-]{1,32}$/);
      expect(command.description.length).toBeGreaterThan(0);
      expect(command.description.length).toBeLessThanOrEqual(100);
      expect(command.description_localizations?.['zh-CN']).toBeTruthy();
    }
    const search = commands.find((c) => c.name === 'search');
    expect(search?.options?.[0]).toMatchObject({
      name: 'state',
      choices: [{ value: 'on' }, { value: 'off' }],
    });
  });

  it('offers global commands in guilds and bot DMs, guild commands only in the guild (Discord refuses BotDM there)', () => {
    for (const command of buildSlashCommands()) expect(command.contexts).toEqual([0, 1]);
    for (const command of buildSlashCommands(true)) expect(command.contexts).toEqual([0]);
  });
});

describe('Discord steps text', () => {
  it('always fits one message, even with huge expanded bodies', () => {
    const view = emptyView();
    for (let i = 0; i < 8; i++) {
      view.steps.push({
        id: `s${i}`,
        kind: 'search',
        title: `🔍 Searched: q${i}`,
        body: 'word '.repeat(800),
        status: 'done',
        collapsed: true,
      });
    }
    view.done = true;
    const expanded = renderStepsText(view, { expanded: true });
    const collapsed = renderStepsText(view, { expanded: false });
    expect(expanded.length).toBeLessThanOrEqual(2000);
    expect(expanded).toContain('> word');
    expect(collapsed).not.toContain('> word');
    for (let i = 0; i < 8; i++) expect(expanded).toContain(`Searched: q${i}`);
  });
});

describeWithShared('Discord plan confirmation', () => {
  let kit: Kit | undefined;
  afterEach(async () => {
    await kit?.close();
    kit = undefined;
  });

  it('shows Run / Cancel and resolves with the choice', async () => {
    const plan = { steps: [{ step: 1, description: 'Search the news', tool: 'web_search', parameters: {} }] };
    const core = new ConfirmingCore((sink, signal) => sink.confirmPlan!(plan, signal), {
      yes: 'Plan done.',
      no: 'Plan cancelled.',
    });
    kit = await startKit(core);
    const mention = fixtureMessage('gatewayMention');
    kit.fake.dispatch('MESSAGE_CREATE', mention);
    const planMessage = await kit.fake.waitFor(() =>
      kit!.fake.messagesIn(mention.id).find((m) => m.content.includes('Search the news')),
    );
    const run = planMessage.components[0].components.find((c: { custom_id: string }) =>
      c.custom_id.startsWith('scout_plan:run:'),
    );
    expect(run.label).toBe('▶ Run');
    pressButton(kit.fake, { channelId: mention.id, messageId: planMessage.id, customId: run.custom_id });
    await kit.fake.waitFor(() =>
      kit!.fake.messagesIn(mention.id).find((m) => m.content.includes('Plan done.')),
    );
    expect(core.choices).toEqual([true]);
    expect(planMessage.components).toEqual([]); // buttons removed once chosen
    expect(planMessage.content).toContain('Running the plan');
  });
});
