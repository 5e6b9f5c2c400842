import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreError } from '../../src/errors.js';
import { silentLogger } from '../../src/logger.js';
import { appendTurn, clearChannelConversations, loadHistory } from '../../src/store/conversation-store.js';
import { createStores } from '../../src/store/create-stores.js';
import { storeBehaviourSuite } from './store-suite.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'scout-store-'));
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const open = (file: string) =>
  createStores({ url: `sqlite://${file}`, sessionTtlMs: 60_000, logger: silentLogger });

storeBehaviourSuite('sqlite', () => open(path.join(dir, 'suite.sqlite')));

describe('sqlite file', () => {
  it('creates the parent directory and keeps history across a restart', async () => {
    const file = path.join(dir, 'nested', 'deeper', 'scout.sqlite');
    const first = await open(file);
    expect(existsSync(file)).toBe(true);
    await appendTurn(
      first,
      'conv-r',
      'chan-r',
      [
        { role: 'user', content: 'remember me' },
        { role: 'assistant', content: 'noted' },
      ],
      60_000,
    );
    await first.settings.set('chan-r', { mode: 'plan' });
    await first.close();

    const second = await open(file);
    expect(await loadHistory(second, 'conv-r')).toEqual([
      { role: 'user', content: 'remember me' },
      { role: 'assistant', content: 'noted' },
    ]);
    expect(await second.settings.get('chan-r')).toEqual({ mode: 'plan' });
    // The channel index survived too, so clearing by channel still finds the conversation.
    expect(await clearChannelConversations(second, 'chan-r')).toBe(1);
    await second.close();
  });

  it('removes rows that expired while nobody read them when the file is reopened', async () => {
    const file = path.join(dir, 'sweep.sqlite');
    const first = await open(file);
    await first.meta.set('gone', 'x', 50);
    await first.meta.set('kept', 'y');
    await first.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = await open(file);
    await second.close();
    // Look underneath Keyv (which would hide an expired row on read): the row itself is gone.
    const raw = new KeyvSqlite(`sqlite://${file}`);
    expect(await raw.get('scout:meta:gone')).toBeUndefined();
    expect(await raw.get('scout:meta:kept')).toBeTypeOf('string');
    await raw.disconnect();
  });

  it('fails to open a file it cannot create, with a StoreError', async () => {
    const blocker = path.join(dir, 'suite.sqlite');
    await expect(open(path.join(blocker, 'inside.sqlite'))).rejects.toBeInstanceOf(StoreError);
  });
});
