/**
 * The terminal tests read the chat's output as a person's terminal does: whole characters, however
 * the pty or pipe cuts the bytes. A write cut inside a multi-byte character (what a loaded machine
 * does to big redraws) must not show as replacement characters, or a test sees a frame the chat
 * never drew.
 */
import { expect, it } from 'vitest';
import { spawnChat } from './chat-process.js';

it('a character cut across two reads of the output arrives whole', async () => {
  // ✅ is E2 9C 85 in UTF-8: the first two bytes, a pause long enough for a read, then the last.
  const script =
    'process.stdout.write(Buffer.from([0xe2, 0x9c])); setTimeout(() => process.stdout.write(Buffer.from([0x85, 0x0a])), 100);';
  const chat = spawnChat({ PATH: process.env.PATH ?? '' }, { args: ['-e', script] });
  expect(await chat.exited).toBe(0);
  expect(chat.stdout()).toBe('✅\n');
});
