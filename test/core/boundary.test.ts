import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
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

/**
 * Static imports of src/ and adapters/, file → files, relative to the repository root. `import
 * type` counts: a type-only edge does not run, but it ties the contract to what it imports just the
 * same (a change there changes the contract, and the file cannot be read without it) — the layering
 * is what this guards. Dynamic `import()` does not count: it is how the composition root (main.ts)
 * loads adapters lazily, by design.
 */
function importGraph(): Map<string, string[]> {
  const specifier = /^\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.[^'"]+)['"]/gm;
  const graph = new Map<string, string[]>();
  for (const file of [...sourceFiles(join(root, 'src')), ...sourceFiles(join(root, 'adapters'))]) {
    const deps = new Set<string>();
    for (const match of readFileSync(file, 'utf8').matchAll(specifier)) {
      const target = resolve(dirname(file), match[1]!).replace(/\.js$/, '.ts');
      const path = target.endsWith('.ts') ? target : `${target}.ts`;
      if (existsSync(path)) deps.add(relative(root, path));
    }
    graph.set(relative(root, file), [...deps]);
  }
  return graph;
}

/** The shortest import chain from `from` to a file `goal` accepts (not `from` itself), or undefined. */
function importChain(
  graph: Map<string, string[]>,
  from: string,
  goal: (file: string) => boolean,
): string[] | undefined {
  const queue: string[][] = [[from]];
  const seen = new Set<string>();
  while (queue.length > 0) {
    const chain = queue.shift()!;
    for (const next of graph.get(chain.at(-1)!) ?? []) {
      if (goal(next)) return [...chain, next];
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push([...chain, next]);
    }
  }
  return undefined;
}

describe('import graph', () => {
  const graph = importGraph();
  const CONTRACT = 'src/surface.ts';
  const inCore = (file: string) => file.startsWith('src/core/');

  it('reads static and type-only imports (the graph is not empty by mistake)', () => {
    expect(graph.get(CONTRACT)).toContain('src/render/view.ts');
    expect(graph.get('src/render/view.ts')).toContain('src/render/events.ts');
    expect(
      importChain(
        new Map([
          ['a', ['b']],
          ['b', ['a']],
        ]),
        'a',
        (f) => f === 'a',
      ),
    ).toEqual(['a', 'b', 'a']);
  });

  it('no import cycle runs through the contract types (src/surface.ts)', () => {
    expect(importChain(graph, CONTRACT, (file) => file === CONTRACT)).toBeUndefined();
  });

  it('neither the contract nor the renderer reaches into src/core', () => {
    const chains: string[] = [];
    for (const file of [CONTRACT, ...[...graph.keys()].filter((f) => f.startsWith('src/render/'))]) {
      const chain = importChain(graph, file, inCore);
      if (chain) chains.push(chain.join(' → '));
    }
    expect(chains).toEqual([]);
  });
});
