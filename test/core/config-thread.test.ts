/** `/config thread on|off` through the core: parsing, the setting, /help, Chinese, bad arguments. */
import { afterEach, describe, expect, it } from 'vitest';
import { parseCommandText } from '../../src/core/commands.js';
import { helpText } from '../../src/core/command-handlers.js';
import { startTestScout, type TestScout } from '../helpers/scout-harness.js';
import { say } from '../../src/i18n/say.js';

let h: TestScout | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ctx = { channelId: 'test:C1', userId: 'U1', locale: 'en' as const };

describe('/config thread on|off', () => {
  it('is a bare command after a mention only with exactly those arguments', () => {
    expect(parseCommandText('config thread off')).toEqual({
      name: 'config',
      args: 'thread off',
      known: true,
    });
    expect(parseCommandText('config')).toEqual({ name: 'config', args: '', known: true });
    expect(parseCommandText('config the printer for me')).toBeUndefined();
  });

  it('sets the channel setting, shows it in /config, and is documented in /help', async () => {
    h = await startTestScout();
    const off = await h.scout.runCommand('config', 'thread OFF', ctx);
    expect(off.changed).toBe(true);
    expect((await h.scout.getSettings('test:C1')).replyInThread).toBe(false);
    expect(say('en', (await h.scout.runCommand('config', '', ctx)).text)).toContain(
      '• Discord mentions: answered in place',
    );

    const on = await h.scout.runCommand('config', 'thread on', { ...ctx, locale: 'zh' });
    expect(say('zh', on.text)).toContain('新话题');
    expect((await h.scout.getSettings('test:C1')).replyInThread).toBe(true);

    expect(say('en', helpText())).toContain('`/config [thread on|off]`');
    expect(say('zh', helpText())).toContain('`/config [thread on|off]`');
  });

  it('answers anything else with the usage line and changes nothing', async () => {
    h = await startTestScout();
    const reply = await h.scout.runCommand('config', 'thread maybe', ctx);
    expect(reply.changed).toBe(false);
    expect(say('en', reply.text)).toBe(
      'Usage: `/config [thread on|off]` — Show this channel’s settings; `thread off` answers Discord mentions in place',
    );
    expect((await h.scout.getSettings('test:C1')).replyInThread).toBe(true);
  });
});
