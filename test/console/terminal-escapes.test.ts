/**
 * Escape sequences in model answers and web text are not obeyed by the terminal: OSC 0 (window
 * title), CSI 2J (clear screen) and OSC 52 (clipboard write) are stripped before printing, while
 * Scout's own styling still reaches a real terminal.
 */
import { describe, expect, it } from 'vitest';
import { ConsoleSink } from '../../adapters/console/console-sink.js';
import { stripStreamingControls, stripTerminalControls } from '../../adapters/console/terminal-safe.js';
import { emptyView, type TurnView } from '../../src/render/view.js';

const HOSTILE =
  'Hello \u001b]0;pwned\u0007world\u001b[2J \u001b]52;c;ZXZpbA==\u001b\\ok\u009b31m\r\u0007 end';

function output(isTTY: boolean) {
  const written: string[] = [];
  return { write: (s: string) => written.push(s), isTTY, columns: 80, text: () => written.join('') };
}

function hostileView(answer: string): TurnView {
  return {
    ...emptyView(),
    steps: [
      {
        id: 's1',
        kind: 'search',
        title: `Searched: \u001b]0;title\u0007news`,
        body: `[1] Page \u001b[2Jtitle`,
        status: 'done',
        collapsed: false,
      },
    ],
    answer,
    answerFinal: true,
    sources: [{ n: 1, title: 'Evil \u001b]52;c;Zm9v\u0007page', url: 'https://example.com/\u001b[2J' }],
    footer: 'stats',
    done: true,
  };
}

/** Terminal controls that are not Scout's own: OSC, DCS/APC, screen clears, C1, BEL, CR. */
const FOREIGN = /\u001b\]|\u001b[PX^_]|\u001b\[2J|[\u0007\u009b\u009d\r]/;

describe('terminal output strips control sequences from model and web text', () => {
  it('strips OSC, CSI and C0/C1 controls, keeping newlines and tabs', () => {
    expect(stripTerminalControls(HOSTILE)).toBe('Hello world ok end');
    expect(stripTerminalControls('a\tb\nc')).toBe('a\tb\nc');
  });

  it('a piped --once turn prints no escape sequence at all', async () => {
    const out = output(false);
    await new ConsoleSink(out).done(hostileView(HOSTILE));
    expect(out.text()).not.toContain('\u001b');
    expect(out.text()).toContain('Hello world');
    expect(out.text()).toContain('Searched: news');
  });

  it('on a terminal, keeps Scout’s own styling and drops what came from the model or the web', async () => {
    const out = output(true);
    await new ConsoleSink(out).done(hostileView(HOSTILE));
    expect(out.text()).not.toMatch(FOREIGN);
    // Scout's own bold/dim styling is still there.
    expect(out.text()).toMatch(/\u001b\[(?:1|2)m/);
    expect(out.text()).toContain('Hello world');
  });

  it('a sequence split across streamed chunks is still stripped whole', async () => {
    const out = output(true);
    const sink = new ConsoleSink(out);
    const view = emptyView();
    const tick = () => new Promise((resolve) => setTimeout(resolve, 80));
    const chunks = ['Hi\u001b[', 'Hi\u001b[2J there \u001b]0;x', 'Hi\u001b[2J there \u001b]0;x\u0007!'];
    for (const answer of chunks) {
      sink.update({ ...view, answer });
      await tick();
    }
    await sink.done({ ...view, answer: chunks[2]!, answerFinal: true, done: true });
    expect(out.text()).not.toMatch(FOREIGN);
    expect(out.text()).not.toContain('[2J');
    expect(out.text()).toContain('Hi there !');
  });

  it('holds back only an unfinished sequence at the end of a stream', () => {
    expect(stripStreamingControls('abc \u001b[3')).toEqual({ safe: 'abc ', consumed: 4 });
    expect(stripStreamingControls('abc \u001b[31m')).toEqual({ safe: 'abc ', consumed: 9 });
    expect(stripStreamingControls('abc')).toEqual({ safe: 'abc', consumed: 3 });
  });
});
