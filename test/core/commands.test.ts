import { describe, expect, it } from 'vitest';
import { parseCommandText } from '../../src/core/commands.js';

describe('parseCommandText', () => {
  it('reads slash commands with arguments', () => {
    expect(parseCommandText('/mode agent')).toEqual({ name: 'mode', args: 'agent', known: true });
    expect(parseCommandText('  /MODEL tool openai/gpt-4.1 temperature=0.2 ')).toEqual({
      name: 'model',
      args: 'tool openai/gpt-4.1 temperature=0.2',
      known: true,
    });
  });

  it('marks unknown slash commands so they get a usage reply', () => {
    expect(parseCommandText('/frobnicate now')).toEqual({ name: 'frobnicate', args: 'now', known: false });
  });

  it('takes bare commands after a mention only when the arguments fit', () => {
    expect(parseCommandText('mode chat')).toEqual({ name: 'mode', args: 'chat', known: true });
    expect(parseCommandText('help')).toEqual({ name: 'help', args: '', known: true });
    expect(parseCommandText('search on')).toEqual({ name: 'search', args: 'on', known: true });
  });

  it('leaves questions that merely start with a command word alone', () => {
    expect(parseCommandText('help me write a poem')).toBeUndefined();
    expect(parseCommandText('search for the best pizza in Rome')).toBeUndefined();
    expect(parseCommandText('mode of transport in Tokyo?')).toBeUndefined();
    expect(parseCommandText('what is 2+2?')).toBeUndefined();
  });
});
