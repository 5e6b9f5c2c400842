/** Runs the real entry point as a user does (`npm start -- …` is `tsx src/main.ts …`) and collects its output. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '../..');

export function runMain(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/main.ts', ...args],
      // A clean environment: no key from the developer's shell can leak into the run.
      {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
        timeout: 30_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
