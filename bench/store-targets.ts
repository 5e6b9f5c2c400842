/**
 * Store URLs for the benchmark: memory, a fresh SQLite file in a temp folder, and Redis when one
 * answers at REDIS_URL (else skipped with a note).
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** How long to wait for Redis to accept a connection before skipping it. */
const REDIS_PROBE_MS = 1_000;

export interface StoreTarget {
  name: 'memory' | 'sqlite' | 'redis';
  url: string;
  /** The SQLite file, to measure its size. */
  file?: string;
  /** Key prefix, so runs never collide in a shared Redis. */
  namespacePrefix?: string;
  cleanup(): Promise<void>;
}

export async function redisReachable(url: string): Promise<boolean> {
  let host = '127.0.0.1';
  let port = 6379;
  try {
    const parsed = new URL(url);
    host = parsed.hostname || host;
    port = Number(parsed.port) || port;
  } catch {
    return false;
  }
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(REDIS_PROBE_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export async function storeTarget(name: StoreTarget['name'], redisUrl: string): Promise<StoreTarget> {
  if (name === 'memory') return { name, url: 'memory://', cleanup: async () => {} };
  if (name === 'redis') {
    return {
      name,
      url: redisUrl,
      namespacePrefix: `scout-bench-${process.pid}-${Date.now()}`,
      cleanup: async () => {},
    };
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'scout-bench-'));
  const file = path.join(dir, 'scout.sqlite');
  return {
    name,
    url: `sqlite://${file}`,
    file,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** The SQLite file plus its WAL and shared-memory files, in bytes. */
export async function sqliteBytes(file: string): Promise<number> {
  let total = 0;
  for (const suffix of ['', '-wal', '-shm']) {
    total += await stat(file + suffix).then(
      (s) => s.size,
      () => 0,
    );
  }
  return total;
}
