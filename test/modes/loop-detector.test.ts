import { describe, expect, it } from 'vitest';
import { LoopDetector } from '../../src/modes/agent/loop-detector.js';
import type { Observation } from '../../src/modes/turn/observations.js';

const fetchCall = (id: string, args: Record<string, unknown>) => ({
  id,
  name: 'fetch_url',
  arguments: JSON.stringify(args),
});

const page = (text: string): Observation => ({
  tool: 'fetch_url',
  input: '',
  text,
  isError: false,
  isEmpty: false,
  isPage: true,
  sources: [],
});

describe('LoopDetector', () => {
  it('counts the same URL with another part as a new call, the same part as a repeat', () => {
    const detector = new LoopDetector();
    const url = 'https://example.com/long';
    expect(detector.partition([fetchCall('a', { url, part: 1 })]).repeated).toHaveLength(0);
    expect(detector.partition([fetchCall('b', { url, part: 2 })]).repeated).toHaveLength(0);
    // The same arguments in another order are the same call.
    const again = fetchCall('c', { part: 2, url });
    expect(detector.partition([again]).repeated).toEqual([again]);
  });

  it('tells page text read before from new text; search lists are not pages', () => {
    const detector = new LoopDetector();
    expect(detector.readNewText([page('Source [1]\nPart 1 of 3.\n\nOne')])).toBe(true);
    expect(detector.readNewText([page('Source [1]\nPart 1 of 3.\n\nOne')])).toBe(false);
    expect(detector.readNewText([page('Source [1]\nPart 2 of 3.\n\nTwo')])).toBe(true);
    expect(detector.readNewText([{ ...page('[1] A — https://a.example'), isPage: false }])).toBe(false);
  });
});
