/**
 * Every user-visible string in both languages, and the locale reaching them: command replies that
 * report a bad /model argument, the terminal chat's own lines, and Slack user locales Scout does not
 * speak (which keep BOT_LOCALE instead of falling to English).
 */
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleSurface } from '../../adapters/console/console-surface.js';
import { toLocale as slackLocale } from '../../src/i18n/translate.js';
import type { ScoutCore } from '../../src/surface.js';
import { type TestScout, startTestScout } from '../helpers/scout-harness.js';
import { say } from '../../src/i18n/say.js';

describe('locale reaches every reply', () => {
  let h: TestScout;
  beforeEach(async () => {
    h = await startTestScout();
  });
  afterEach(async () => {
    await h.close();
  });

  it('explains a bad /model argument in Chinese to a Chinese user', async () => {
    const zh = { channelId: 'test:C1', userId: 'U1', locale: 'zh' as const };
    const noSlash = await h.scout.runCommand('model', 'tool gpt4', zh);
    expect(say('zh', noSlash.text)).toContain('模型设置无效');
    expect(say('zh', noSlash.text)).toContain('应为 provider/model 格式');
    const option = await h.scout.runCommand('model', 'tool openai/gpt-4.1 colour=blue', zh);
    expect(say('zh', option.text)).toContain('未知选项 "colour=blue"');
    const noKey = await h.scout.runCommand('model', 'tool anthropic/claude-sonnet-4-5', zh);
    expect(say('zh', noKey.text)).toContain('未设置 ANTHROPIC_API_KEY');
    expect(say('zh', noKey.text)).not.toMatch(/cannot be used|expected provider/);
    // English stays English.
    const en = await h.scout.runCommand('model', 'tool gpt4', { channelId: 'test:C1', userId: 'U1' });
    expect(say('en', en.text)).toContain('expected provider/model, for example openai/gpt-4.1-mini');
  });
});

describe('terminal chat and Slack locales', () => {
  it('the terminal chat greets in BOT_LOCALE', async () => {
    const core = { locale: 'zh' } as unknown as ScoutCore;
    const input = new PassThrough();
    // The greeting is for a person at a terminal; piped output gets only the transcript.
    const output = Object.assign(new PassThrough(), { isTTY: true, columns: 80 });
    let printed = '';
    output.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
    });
    const surface = createConsoleSurface({ core, input, output, conversation: 'console:locale' });
    await surface.start();
    input.end();
    await surface.stop();
    expect(printed).toContain('输入问题');
  });

  it('a Slack user locale Scout does not speak keeps BOT_LOCALE', () => {
    expect(slackLocale('zh-CN', 'en')).toBe('zh');
    expect(slackLocale('en-US', 'zh')).toBe('en');
    expect(slackLocale('ja-JP', 'zh')).toBe('zh');
    expect(slackLocale(undefined, 'zh')).toBe('zh');
  });
});
