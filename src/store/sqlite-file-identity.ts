/**
 * Whether a SQLite file path still leads to the file that was opened (same device and inode).
 */
import { stat } from 'node:fs/promises';
import type { Logger } from '../logger.js';

/** Writes look at the file at most this often while it is in place (a stat; pings look every time). */
const FILE_CHECK_INTERVAL_MS = 1_000;
/** What /healthz and failed writes say once the file is gone (the log names the file). */
export const SQLITE_FILE_LOST = 'the SQLite file was deleted or replaced while open';

/**
 * Watches that the path still leads to the file that was opened. An open SQLite connection keeps
 * reading a deleted (or replaced) file, and reads keep working, while nothing written reaches the
 * file a restart opens — so a lost file is reported by ping (/healthz) and refuses writes, for good:
 * the file at the path now, if any, is not the one Scout holds.
 */
export class FileIdentity {
  #lost = false;
  #checkedAt = 0;

  constructor(
    private readonly file: string,
    private readonly opened: { dev: number; ino: number },
    private readonly logger: Logger,
  ) {}

  static async of(file: string, logger: Logger): Promise<FileIdentity | undefined> {
    if (file === ':memory:' || file === '') return undefined;
    try {
      const { dev, ino } = await stat(file);
      return new FileIdentity(file, { dev, ino }, logger);
    } catch {
      return undefined; // Not a plain file path (a URI form): nothing to watch.
    }
  }

  get lost(): boolean {
    return this.#lost;
  }

  /** False once the path no longer leads to the opened file. `recent`: trust a check under a second old. */
  async intact(recent = false): Promise<boolean> {
    if (this.#lost) return false;
    if (recent && Date.now() - this.#checkedAt < FILE_CHECK_INTERVAL_MS) return true;
    let now: { dev: number; ino: number } | undefined;
    try {
      now = await stat(this.file);
    } catch (err) {
      // Only a missing file counts; a passing permission or I/O error is not proof of loss.
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return true;
    }
    if (now && now.dev === this.opened.dev && now.ino === this.opened.ino) {
      this.#checkedAt = Date.now();
      return true;
    }
    // Said once, also when several checks saw it at the same moment.
    if (this.#lost) return false;
    this.#lost = true;
    this.logger.error(
      { file: this.file },
      `${SQLITE_FILE_LOST}: nothing Scout writes from now on can be kept, and a restart opens a new, empty file unless it is restored first (on Linux the open file can still be copied from /proc/<pid>/fd/)`,
    );
    return false;
  }
}
