import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('architecture boundary', () => {
  it('src/ imports no platform SDK (only main.ts loads adapters, dynamically)', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(join(root, 'src'))) {
      const text = readFileSync(file, 'utf8');
      if (/from\s+['"](@slack\/[\w-]+|discord\.js|@discordjs\/[\w-]+)['"]/.test(text))
        offenders.push(relative(root, file));
      const staticAdapterImport = /^import\s[^;]*from\s+['"][./]*adapters\//m.test(text);
      if (staticAdapterImport) offenders.push(`${relative(root, file)} (static adapter import)`);
    }
    expect(offenders).toEqual([]);
  });

  it('the console adapter does not pull in Bolt or discord.js', () => {
    const offenders = sourceFiles(join(root, 'adapters/console')).filter((file) =>
      /from\s+['"](@slack\/|discord\.js)/.test(readFileSync(file, 'utf8')),
    );
    expect(offenders).toEqual([]);
  });
});
