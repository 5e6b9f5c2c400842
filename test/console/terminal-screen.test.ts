/**
 * The terminal's message primitives as a person reads them: bytes written to a terminal are played
 * through a small emulator (cursor moves, erases, wrapping, a screen of limited height), so "redrawn
 * in place" is checked as what ends up on screen and in the scrollback — every line once, in order —
 * and a pipe gets each message once, in its final state.
 */
import { describe, expect, it } from 'vitest';
import { ConsoleSink } from '../../adapters/console/console-sink.js';
import { type TerminalPayload, TerminalScreen } from '../../adapters/console/terminal-screen.js';
import { TerminalEmulator } from './terminal-emulator.js';

const text = (...lines: string[]): TerminalPayload => ({ lines, edits: 'continue' });
const steps = (...lines: string[]): TerminalPayload => ({ lines, edits: 'reprint' });

/** A terminal `columns` × `rows` and a screen drawing on it (redraws are immediate: see `settle`). */
function tty(columns = 80, rows = 24) {
  const emulator = new TerminalEmulator(columns, rows);
  let written = '';
  const screen = new TerminalScreen({
    write: (s: string) => {
      written += s;
      emulator.write(s);
    },
    isTTY: true,
    columns,
    rows,
  });
  return { screen, emulator, written: () => written };
}

/** Lets a throttled redraw run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 80));

describe('TerminalScreen on a TTY', () => {
  it('redraws live messages in place: the screen shows each message once, in its latest state', async () => {
    const { screen, emulator } = tty();
    const stepsId = await screen.post(steps('⏳ Searching: rust', ''));
    await settle();
    await screen.edit(stepsId, steps('✅ Searched: rust', '⏳ Reading results', ''));
    await settle();
    const answer = await screen.post(text('Rust is'));
    await settle();
    await screen.edit(answer, text('Rust is a language', '', 'with an ownership model.'));
    await screen.edit(stepsId, steps('✅ Searched: rust', '✅ Read 3 results', ''));
    screen.close();
    expect(emulator.text()).toBe(
      [
        '✅ Searched: rust',
        '✅ Read 3 results',
        '',
        'Rust is a language',
        '',
        'with an ownership model.',
        '',
      ].join('\n'),
    );
  });

  it('a long answer scrolls away for good: every line once, in order, earlier rows never rewritten', async () => {
    const { screen, emulator, written } = tty(40, 10);
    const id = await screen.post(text(''));
    const lines: string[] = [];
    for (let i = 0; i < 60; i++) {
      lines.push(`line ${i} ${'word '.repeat(i % 12)}`.trimEnd());
      await screen.edit(id, text(...lines));
      if (i % 7 === 0) await settle();
    }
    screen.close();
    // What a 40-column terminal shows of these (ASCII) lines: each cut every 40 characters.
    const rows = lines.flatMap((line) => line.match(/.{1,40}/g) ?? ['']);
    expect(rows.length).toBeGreaterThan(lines.length);
    expect(emulator.text()).toBe([...rows, ''].join('\n'));
    // A redraw never reaches above the screen: at most 9 rows (the live ones) up at a time.
    const ups = [...written().matchAll(/\x1b\[(\d+)A/g)].map((m) => Number(m[1]));
    expect(Math.max(...ups)).toBeLessThanOrEqual(9);
  });

  it('a line changed after it scrolled away stays as printed; the text goes on after it, nothing repeated', async () => {
    const { screen, emulator } = tty(40, 5);
    const lines = Array.from({ length: 12 }, (_, i) => `paragraph ${i} [${i}]`);
    const id = await screen.post(text(...lines));
    await settle();
    // The final text: a marker dropped in line 1 (long gone from the screen), one line added.
    const final = lines.map((line, i) => (i === 1 ? 'paragraph 1' : line));
    await screen.edit(id, text(...final, 'References'));
    screen.close();
    const shown = emulator.text().split('\n');
    expect(shown.filter((line) => line.startsWith('paragraph'))).toHaveLength(12);
    expect(shown.filter((line) => line === 'References')).toHaveLength(1);
    // Within reach, the same change is redrawn.
    expect(shown).toContain('paragraph 11 [11]');
  });

  it('a steps message edited after a question prints its changed lines under the question, once', async () => {
    const { screen, emulator } = tty();
    const id = await screen.post(steps('📋 Plan', '   1. look it up', ''));
    screen.commit();
    emulator.write('Run this plan? [Y/n] y\n');
    await screen.edit(id, steps('📋 Plan', '   1. look it up', '✅ look it up', ''));
    await screen.post(text('Done.', ''));
    screen.close();
    expect(emulator.text()).toBe(
      [
        '📋 Plan',
        '   1. look it up',
        '',
        'Run this plan? [Y/n] y',
        '✅ look it up',
        '',
        'Done.',
        '',
        '',
      ].join('\n'),
    );
  });

  it('steps that change after they scrolled away print below once each, however often they change', async () => {
    const { screen, emulator } = tty(40, 6);
    const states = (done: number) =>
      steps(
        ...Array.from({ length: 8 }, (_, i) => `${i < done ? '✅' : i === done ? '⏳' : '🕓'} step ${i + 1}`),
        '',
      );
    const id = await screen.post(states(0));
    for (let done = 1; done <= 8; done++) {
      await settle();
      await screen.edit(id, states(done));
    }
    screen.close();
    const shown = emulator.text().split('\n');
    // Every step ends done, and each done line is printed once, in order.
    const doneLines = shown.filter((line) => line.startsWith('✅'));
    expect(doneLines).toEqual(Array.from({ length: 8 }, (_, i) => `✅ step ${i + 1}`));
  });

  it('wraps wide characters as the terminal does: a Chinese line redrawn in place leaves no fragment', async () => {
    const { screen, emulator } = tty(20, 10);
    const id = await screen.post(text('这是一个很长的中文句子'));
    await settle();
    await screen.edit(id, text('这是一个很长的中文句子，它会在二十列的终端里换行。'));
    screen.close();
    expect(emulator.text()).toBe(
      ['这是一个很长的中文句', '子，它会在二十列的终', '端里换行。', ''].join('\n'),
    );
  });

  it('a typed-ahead note goes above a turn still all live, and under a turn part of which scrolled away', async () => {
    const short = tty();
    const id = await short.screen.post(text('Answer so far'));
    await settle();
    short.screen.note('⏳ queued: next question');
    await short.screen.edit(id, text('Answer so far, and more.', ''));
    short.screen.close();
    expect(short.emulator.text()).toBe(
      ['⏳ queued: next question', 'Answer so far, and more.', '', ''].join('\n'),
    );

    const long = tty(40, 4);
    const lines = Array.from({ length: 8 }, (_, i) => `line ${i}`);
    const longId = await long.screen.post(text(...lines));
    await settle();
    long.screen.note('⏳ queued: next question');
    await long.screen.edit(longId, text(...lines, 'last line', ''));
    long.screen.close();
    expect(long.emulator.text()).toBe([...lines, 'last line', '', '⏳ queued: next question', ''].join('\n'));
  });
});

describe('ConsoleSink.end', () => {
  it('a message that got neither a turn nor a reply leaves no "Working…" behind', async () => {
    const emulator = new TerminalEmulator(80, 24);
    const sink = new ConsoleSink({
      write: (s: string) => emulator.write(s),
      isTTY: true,
      columns: 80,
      rows: 24,
    });
    sink.begin();
    expect(emulator.text()).toContain('Working…');
    sink.end();
    expect(emulator.text().trim()).toBe('');
  });
});

describe('TerminalScreen without a TTY', () => {
  it('prints nothing until the turn ends, then every message once, in its final state, in order', async () => {
    let written = '';
    const screen = new TerminalScreen({ write: (s: string) => (written += s) });
    const stepsId = await screen.post(steps('⏳ Working…', ''));
    const answer = await screen.post(text('Par'));
    await screen.edit(
      answer,
      text('Paris is the capital [1].', '', 'References', '1. Paris <https://x.test>'),
    );
    await screen.edit(stepsId, steps('✅ Searched: capital', ''));
    await settle();
    expect(written).toBe('');
    screen.close();
    expect(written).toBe(
      '✅ Searched: capital\n\nParis is the capital [1].\n\nReferences\n1. Paris <https://x.test>\n',
    );
    expect(written).not.toContain('\x1b');
  });

  it('a commit before a question prints what stands; later edits print only what is new', async () => {
    let written = '';
    const screen = new TerminalScreen({ write: (s: string) => (written += s) });
    const id = await screen.post(steps('🔐 notes__delete_note wants to run', ''));
    screen.commit();
    written += 'Allow this tool call? [y/N] y\n';
    await screen.edit(id, steps('🔐 notes__delete_note wants to run', '✅ Approved: running it.', ''));
    screen.close();
    expect(written).toBe(
      '🔐 notes__delete_note wants to run\n\nAllow this tool call? [y/N] y\n✅ Approved: running it.\n\n',
    );
  });
});
