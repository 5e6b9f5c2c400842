import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { commandNameFor } from '../../adapters/slack/commands.js';
import { COMMAND_NAMES } from '../../src/core/commands.js';
import { repoRoot } from '../helpers/fixtures.js';

const manifest = parse(readFileSync(path.join(repoRoot, 'manifest.yml'), 'utf8'));

describe('manifest.yml', () => {
  it('declares exactly the commands the core handles', () => {
    const commands: string[] = manifest.features.slash_commands.map((c: { command: string }) => c.command);
    expect(commands.map((c) => commandNameFor(c)).sort()).toEqual([...COMMAND_NAMES].sort());
    for (const c of manifest.features.slash_commands) {
      expect(c.command.length).toBeLessThanOrEqual(32);
      expect(c.description).toBeTruthy();
    }
  });

  it('subscribes to the events and scopes the Slack surface uses', () => {
    const events: string[] = manifest.settings.event_subscriptions.bot_events;
    for (const e of [
      'app_mention',
      'message.im',
      'message.channels',
      'message.groups',
      'app_home_opened',
      'assistant_thread_started',
    ]) {
      expect(events).toContain(e);
    }
    const scopes: string[] = manifest.oauth_config.scopes.bot;
    for (const s of [
      'app_mentions:read',
      'chat:write',
      'commands',
      'im:history',
      'channels:history',
      'groups:history',
      'mpim:history',
      'files:read',
      'assistant:write',
      'users:read',
    ]) {
      expect(scopes).toContain(s);
    }
    expect(manifest.settings.socket_mode_enabled).toBe(true);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
    expect(manifest.features.agent_view.suggested_prompts.length).toBeLessThanOrEqual(4);
    expect(manifest.display_information.name).toBe('Scout');
  });

  it('maps renamed commands by name', () => {
    expect(commandNameFor('/scout-help')).toBe('help');
    expect(commandNameFor('/scout_mode')).toBe('mode');
    expect(commandNameFor('/HELP')).toBe('help');
    expect(commandNameFor('/weather')).toBeUndefined();
  });
});
