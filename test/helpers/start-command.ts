/**
 * What users run: package.json's start script (`node <flags> scripts/start.mjs`), which the Docker
 * image's CMD repeats. Read once here for the tests and the bench, which start Scout the same way.
 */
import { readFileSync } from 'node:fs';

export const startCommand: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  }
).scripts.start;

/** The start script's Node and V8 flags, in order. */
export const startFlags: string[] = startCommand.split(' ').filter((arg) => arg.startsWith('--'));
