import { describe, expect, it } from 'vitest';
import type { ChannelPace } from '../../src/render/channel-pacer.js';
import { DeliveryError } from '../../src/render/delivery.js';
import { deliverReply, replyParts } from '../../src/render/reply.js';

const paragraphs = (n: number) =>
  Array.from({ length: n }, (_, i) => `Paragraph ${i}: ${'word '.repeat(30).trim()}.`).join('\n\n');

const rateLimited = () => new DeliveryError({ kind: 'rate-limited', code: '429', retryAfterMs: 5 });
const refused = () => new DeliveryError({ kind: 'refused', code: 'not_in_channel' });

describe('a reply under the delivery policy', () => {
  it('is adapted and made well formed once, then split at the limit without losing text', () => {
    const text = `${paragraphs(20)}\n\nbroken \ud83d pair`;
    const parts = replyParts(text, { maxChars: 500, adapt: (m) => m.replaceAll('word', 'WORD') });
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(500);
    const joined = parts.join('\n\n');
    expect(joined).not.toContain('word');
    expect(joined).toContain('Paragraph 19');
    expect(joined).toContain('broken \uFFFD pair');
  });

  it('writes every part in order, each in a slot of its route’s pace, retrying rate limits', async () => {
    const written: string[] = [];
    const slots: string[] = [];
    const pace: ChannelPace = {
      acquire: () => {
        throw new Error('not used');
      },
      run: (kind, call) => {
        slots.push(kind);
        return call();
      },
    };
    let limited = 2;
    await deliverReply(paragraphs(10), { maxChars: 400 }, [
      {
        pace,
        write: async (part) => {
          if (written.length === 1 && limited-- > 0) throw rateLimited();
          written.push(part);
        },
      },
    ]);
    expect(written).toEqual(replyParts(paragraphs(10), { maxChars: 400 }));
    // Two more slots than parts: each retry of the rate-limited part waited for its own.
    expect(slots).toEqual(Array(written.length + 2).fill('post'));
  });

  it('a route that refuses hands that part and the rest to the next, once', async () => {
    const first: string[] = [];
    const second: Array<[string, number]> = [];
    const fallbacks: unknown[] = [];
    await deliverReply(paragraphs(10), { maxChars: 400 }, [
      {
        write: async (part) => {
          if (first.length === 1) throw refused();
          first.push(part);
        },
        onFallback: (err) => fallbacks.push(err),
      },
      { write: async (part, index) => void second.push([part, index]) },
    ]);
    const parts = replyParts(paragraphs(10), { maxChars: 400 });
    expect(first).toEqual(parts.slice(0, 1));
    expect(second).toEqual(parts.slice(1).map((part, i) => [part, i + 1]));
    expect(fallbacks).toHaveLength(1);
  });

  it('when the last route fails, the later parts are not sent and the failure is thrown', async () => {
    const written: string[] = [];
    const delivery = deliverReply(paragraphs(10), { maxChars: 400 }, [
      {
        write: async (part) => {
          if (written.length === 2) throw refused();
          written.push(part);
        },
      },
    ]);
    await expect(delivery).rejects.toMatchObject({ kind: 'refused' });
    expect(written).toHaveLength(2);
  });
});
