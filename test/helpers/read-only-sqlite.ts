/**
 * A SQLite store whose file cannot be written, the way an operator meets it (a read-only volume, a
 * file owned by someone else): reads work, every write fails with SQLITE_READONLY. The file is made
 * read-only before the store opens it. As root, permissions do not stop writes, so the immutable
 * attribute is used; where that is not allowed either (some containers), the helper says so and the
 * calling test skips.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../src/logger.js';
import { createStores } from '../../src/store/create-stores.js';
import type { Stores } from '../../src/store/types.js';

export interface ReadOnlySqlite {
  stores: Stores;
  url: string;
  close(): Promise<void>;
}

const isRoot = () => process.getuid?.() === 0;

function setImmutable(file: string, on: boolean): boolean {
  try {
    execFileSync('chattr', [on ? '+i' : '-i', file], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Opens a read-only SQLite store, or returns why it cannot here. `seed` writes what the store should
 * already hold (a conversation, say) while it is still writable.
 */
export async function openReadOnlySqlite(
  seed?: (stores: Stores) => Promise<void>,
): Promise<ReadOnlySqlite | { unavailable: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'scout-readonly-'));
  const file = path.join(dir, 'scout.sqlite');
  const url = `sqlite://${file}`;
  const writable = await createStores({ url, sessionTtlMs: 60_000, logger: silentLogger });
  await writable.meta.set('created', true);
  await seed?.(writable);
  await writable.close();
  if (isRoot()) {
    if (!setImmutable(file, true)) {
      await rm(dir, { recursive: true, force: true });
      return {
        unavailable: 'running as root without chattr +i: a read-only SQLite file cannot be made here',
      };
    }
  } else {
    await chmod(file, 0o444);
  }
  const stores = await createStores({
    url,
    sessionTtlMs: 60_000,
    logger: silentLogger,
    operationTimeoutMs: 2_000,
  });
  return {
    stores,
    url,
    async close() {
      await stores.close();
      if (isRoot()) setImmutable(file, false);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
