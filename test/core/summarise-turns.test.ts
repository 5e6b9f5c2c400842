import { describe, expect, it } from 'vitest';
import { sameScript } from '../../src/core/summarise-turns.js';

const english = 'Our budget is 17500 EUR and the launch is on 3 June.\nNoted, the launch is on 3 June.';
const chinese =
  '我们的预算是 17500 欧元，六月三日发布。\n好的，已记下发布日期和预算，另外还需要确认供应商名单，请在周五之前回复。';

describe('sameScript (a summary in the conversation’s script)', () => {
  it('accepts a summary in the script of the conversation, names and numbers in another included', () => {
    expect(sameScript(english, '- Budget 17500 EUR; launch 3 June')).toBe(true);
    expect(sameScript(chinese, '- 预算 17500 欧元（Acme GmbH 供货），六月三日发布')).toBe(true);
  });

  it('refuses a Chinese conversation summarised in English, and the reverse', () => {
    expect(sameScript(chinese, '- The budget is 17500 EUR and the launch is on 3 June')).toBe(false);
    expect(sameScript(english, '- 预算 17500 欧元，六月三日发布')).toBe(false);
  });

  it('accepts either script for a conversation in both, and does not judge a near-empty one', () => {
    expect(sameScript(`${english}\n\n${chinese}`, '- Budget 17500 EUR')).toBe(true);
    expect(sameScript(`${english}\n\n${chinese}`, '- 预算 17500 欧元')).toBe(true);
    expect(sameScript('ok\n好', '- 好的')).toBe(true);
  });
});
