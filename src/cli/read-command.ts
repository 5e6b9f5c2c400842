/**
 * `npm start -- --read <file|url>… [--focus "…"] [--part N]`: prints what fetch_url hands the model for
 * each document — the same reader, budget (FETCH_MAX_CHARS), header and Markdown, through the same
 * function (documentForModel) — so an operator can see what Scout reads. URLs go through fetch_url's
 * fetch (address guard, redirects, size and time caps) but not its provenance policy: the operator
 * typed them. Needs no model key or platform token: it reads, it does not answer.
 */
import { fileURLToPath } from 'node:url';
import { failureReason, MAX_FOCUS_CHARS, MAX_PARTS } from '../tools/fetch-policy.js';
import { type DocumentReadOptions, documentForModel, fetchForModel } from '../tools/fetch-url-tool.js';
import type { ToolOutput } from '../tools/types.js';
import { LocalFileError, readLocalDocument } from './local-document.js';

export interface ReadArguments {
  /** Files and URLs, in the order given. */
  targets: string[];
  focus?: string;
  /** As typed: checked here. */
  part?: string;
}

/**
 * Documents being read at once. Each holds its bytes (up to FETCH_MAX_BYTES) until the reader is
 * done with it: started all together, a thousand pages held all of theirs (peak RSS 1.3-1.4 GB for
 * 353 MB of HTML). The reader pool reads two at a time; the rest of the window hides the network's
 * latency for URLs.
 */
export const READ_IN_FLIGHT = 16;

/**
 * Documents opened past the last one printed. Output keeps the order given, so a slow document (a
 * big PDF, a URL near its 10 s) holds back what follows it: without this bound the documents behind
 * it were all read and held, done, until it was printed — a thousand outputs for one slow first URL.
 * Four windows' worth keeps both readers busy behind a slow one.
 */
export const READ_AHEAD = 4 * READ_IN_FLIGHT;

/** process.stdout and process.stderr: `done` is called once the text has been handed to the system. */
interface Output {
  write(text: string, done?: (err?: Error | null) => void): unknown;
}

/**
 * Exit code: 0 when every document was read, 1 when any could not be (each named on stderr). Resolves
 * once all it wrote has left the process: the caller exits right after, and writes to a pipe are
 * queued in the process (`--read … | less`, or a program reading the output) — an exit while some are
 * queued loses them, the end of the output.
 */
export async function runRead(args: ReadArguments, stdout: Output, stderr: Output): Promise<number> {
  const code = await readAll(args, stdout, stderr);
  await Promise.all([stdout, stderr].map((out) => new Promise((resolve) => out.write('', resolve))));
  return code;
}

async function readAll(args: ReadArguments, stdout: Output, stderr: Output): Promise<number> {
  const problem = argumentProblem(args);
  if (problem) {
    stderr.write(`${problem} (see --help)\n`);
    return 1;
  }
  const focus = args.focus?.trim();
  const read: DocumentReadOptions = {
    ...(focus ? { focus, focusFrom: 'focus' } : {}),
    ...(args.part !== undefined ? { part: Number(args.part) } : {}),
  };
  // READ_IN_FLIGHT at a time, in the order given (URLs wait on the network), printed in that order.
  const outputs = inOrder(args.targets, READ_IN_FLIGHT, READ_AHEAD, (target) => readTarget(target, read));
  const several = args.targets.length > 1;
  let printed = 0;
  let failed = 0;
  for await (const [target, output] of outputs) {
    if (output.isError) {
      failed++;
      stderr.write(`${output.text.replace(/\s+/g, ' ').trim()}\n`);
      continue;
    }
    // As `head` does: a header per document when there are several, a blank line between them.
    const header = several ? `${printed > 0 ? '\n' : ''}==> ${target} <==\n` : '';
    stdout.write(`${header}${output.text}\n`);
    printed++;
  }
  return failed > 0 ? 1 : 0;
}

/**
 * `step` for each item, in order: at most `limit` unfinished at once, and none started `ahead` or more
 * items past the one its caller asks for next. Each result is let go once handed over.
 */
async function* inOrder<T, R>(
  items: readonly T[],
  limit: number,
  ahead: number,
  step: (item: T) => Promise<R>,
): AsyncGenerator<[T, R], void, undefined> {
  let running = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  const run = async (item: T): Promise<R> => {
    if (running < limit) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await step(item);
    } finally {
      release();
    }
  };
  const started = new Map<number, Promise<R>>();
  let next = 0;
  for (let index = 0; index < items.length; index++) {
    for (; next < items.length && next < index + ahead; next++) started.set(next, run(items[next]!));
    const result = started.get(index)!;
    started.delete(index);
    yield [items[index]!, await result];
  }
}

function argumentProblem(args: ReadArguments): string | undefined {
  if (args.targets.length === 0) return '--read needs at least one file or URL';
  if (args.focus !== undefined && args.focus.length > MAX_FOCUS_CHARS)
    return `--focus is longer than ${MAX_FOCUS_CHARS} characters (fetch_url's limit)`;
  if (args.part !== undefined) {
    const part = Number(args.part);
    if (!Number.isInteger(part) || part < 1 || part > MAX_PARTS)
      return `--part must be a whole number from 1 to ${MAX_PARTS}`;
  }
  return undefined;
}

/** http(s) and other schemes are URLs (fetch_url refuses what it would refuse); file:// and paths are files. */
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

async function readTarget(target: string, read: DocumentReadOptions): Promise<ToolOutput> {
  if (URL_LIKE.test(target) && !/^file:/i.test(target)) return fetchForModel(target, read);
  // A file has no download to wait for: its clock starts when a reader takes it, and the reader's
  // own CPU limit bounds it (documents read at once wait their turn without losing time).
  try {
    const doc = await readLocalDocument(/^file:/i.test(target) ? fileURLToPath(target) : target);
    return await documentForModel(doc, read);
  } catch (err) {
    const reason = err instanceof LocalFileError ? err.message : failureReason(err);
    return { isError: true, text: `Could not read ${target}: ${reason}` };
  }
}
