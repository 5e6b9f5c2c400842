import path from 'node:path';
import { ConfigError } from '../errors.js';
import type { StoreBackend } from './types.js';

export const DEFAULT_STORE_URL = 'sqlite://data/scout.sqlite';

export type StoreTarget =
  | { backend: 'memory' }
  | { backend: 'sqlite'; file: string }
  | { backend: 'redis'; url: string };

/**
 * `memory://`, `sqlite://relative/or/absolute.sqlite` (relative to the working directory;
 * `sqlite:///abs/path` is absolute), `redis://…` or `rediss://…`.
 */
export function parseStoreUrl(url: string, cwd = process.cwd()): StoreTarget {
  const trimmed = url.trim();
  const scheme = /^([a-z]+):/i.exec(trimmed)?.[1]?.toLowerCase();
  const backend: StoreBackend | undefined =
    scheme === 'memory'
      ? 'memory'
      : scheme === 'sqlite'
        ? 'sqlite'
        : scheme === 'redis' || scheme === 'rediss'
          ? 'redis'
          : undefined;
  if (backend === 'memory') return { backend };
  if (backend === 'redis') return { backend, url: trimmed };
  if (backend === 'sqlite') {
    const rest = trimmed.replace(/^sqlite:(\/\/)?/i, '');
    if (rest === '')
      throw new ConfigError(['STORE_URL: sqlite:// needs a file path, e.g. sqlite://data/scout.sqlite']);
    if (rest === ':memory:') return { backend, file: rest };
    return { backend, file: path.resolve(cwd, rest) };
  }
  throw new ConfigError([
    `STORE_URL: unsupported scheme "${scheme ?? trimmed.slice(0, 12)}" (use memory://, sqlite:// or redis://)`,
  ]);
}
