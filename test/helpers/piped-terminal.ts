/**
 * The terminal chat driven as a user at a pipe does it: `lines` typed into it, everything it printed
 * once it exits (end of input), and its exit code.
 */
import { PassThrough } from 'node:stream';
import { createConsoleSurface } from '../../adapters/console/console-surface.js';
import type { TestScout } from './scout-harness.js';

export async function pipedTerminalChat(
  h: TestScout,
  lines: string[],
  conversation: string,
): Promise<{ printed: string; code: number }> {
  const input = new PassThrough();
  const output = Object.assign(new PassThrough(), { isTTY: false });
  let printed = '';
  output.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  const exited = new Promise<number>((resolve) => {
    const surface = createConsoleSurface({ core: h.scout, input, output, conversation, onExit: resolve });
    void surface.start();
  });
  input.end(`${lines.join('\n')}\n`);
  const code = await exited;
  return { printed, code };
}
