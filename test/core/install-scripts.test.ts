/**
 * npm 12 skips a dependency's install script unless `package.json`'s `allowScripts` names it: left
 * off, sqlite3's native addon is never built and the embedded store cannot open. Every package the
 * lockfile marks as running an install script is named there, and nothing else is.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (file: string) => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));

describe('install scripts', () => {
  it('allowScripts names exactly the dependencies whose install scripts the lockfile says run', () => {
    const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
      .sort();
    const allowed = read('package.json').allowScripts as Record<string, boolean>;
    expect(withScripts).toContain('sqlite3');
    expect(Object.keys(allowed).sort()).toEqual(withScripts);
    for (const name of withScripts) expect(allowed[name]).toBe(true);
  });
});
