/**
 * The default operator instructions, for every channel that set none of its own: SCOUT_INSTRUCTIONS
 * (the text) or SCOUT_INSTRUCTIONS_FILE (a path to a UTF-8 text file). Checked at start-up: a file
 * that is missing, unreadable or too long is a configuration error naming the variable, never a
 * silently shorter prompt. Problems never quote the text or the path (either may be private).
 */
import { readFileSync, statSync } from 'node:fs';
import { looksLikeSecret } from '../llm/looks-like-secret.js';
import { MAX_INSTRUCTIONS_CHARS, cleanInstructions } from '../prompts/operator-instructions.js';

/** A UTF-8 character takes at most 4 bytes: a bigger file cannot fit and is not read at all. */
const MAX_FILE_BYTES = MAX_INSTRUCTIONS_CHARS * 4;

export interface DefaultInstructions {
  text?: string;
  problems: string[];
}

export function loadDefaultInstructions(env: {
  SCOUT_INSTRUCTIONS?: string | undefined;
  SCOUT_INSTRUCTIONS_FILE?: string | undefined;
}): DefaultInstructions {
  const inline = env.SCOUT_INSTRUCTIONS;
  const file = env.SCOUT_INSTRUCTIONS_FILE;
  if (inline !== undefined && file !== undefined) {
    return { problems: ['SCOUT_INSTRUCTIONS and SCOUT_INSTRUCTIONS_FILE: set one of them, not both'] };
  }
  if (inline !== undefined) return checked('SCOUT_INSTRUCTIONS', inline);
  if (file === undefined) return { problems: [] };
  let raw: string;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) return { problems: ['SCOUT_INSTRUCTIONS_FILE: not a file (a directory?)'] };
    if (stat.size > MAX_FILE_BYTES) return { problems: [tooLong('SCOUT_INSTRUCTIONS_FILE')] };
    raw = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return {
      problems: [
        code === 'ENOENT'
          ? 'SCOUT_INSTRUCTIONS_FILE: the file does not exist'
          : `SCOUT_INSTRUCTIONS_FILE: the file cannot be read (${code ?? 'error'})`,
      ],
    };
  }
  return checked('SCOUT_INSTRUCTIONS_FILE', raw);
}

function checked(variable: string, raw: string): DefaultInstructions {
  const { text, cutChars } = cleanInstructions(raw);
  if (cutChars > 0) return { problems: [tooLong(variable, text.length + cutChars)] };
  // `/config` shows the instructions to anyone in the channel: a key pasted here would be on show.
  if (looksLikeSecret(text)) {
    return {
      problems: [`${variable}: looks like it holds an API key or token; /config shows the instructions`],
    };
  }
  return text === '' ? { problems: [] } : { text, problems: [] };
}

function tooLong(variable: string, chars?: number): string {
  const size = chars === undefined ? '' : ` (${chars.toLocaleString('en')})`;
  return `${variable}: longer than ${MAX_INSTRUCTIONS_CHARS.toLocaleString('en')} characters${size}; shorten it`;
}
