import { EventEmitter } from 'node:events';
import type { KeyvStoreAdapter, StoredData } from 'keyv';
import { StoreError } from '../errors.js';
import { bounded } from './bounded.js';

/** The part of a storage adapter Scout needs; each backend supplies one per namespace. */
export interface RawStore {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown, ttlMs?: number): Promise<unknown>;
  delete(key: string): Promise<boolean>;
  clear(): Promise<void>;
}

/**
 * A Keyv storage adapter that bounds every operation and turns failures into StoreError. Keyv is
 * created with `throwOnErrors: true`, so these errors reach the caller instead of becoming a silent
 * `undefined`. `has` is deliberately absent: Keyv then checks `has` through `get`, which also honours
 * the expiry Keyv writes into each value (SQLite and the in-memory map have no native TTL).
 */
export class BoundedAdapter extends EventEmitter implements KeyvStoreAdapter {
  opts: Record<string, unknown>;
  namespace?: string | undefined;

  constructor(
    private readonly raw: RawStore,
    private readonly options: { label: string; timeoutMs: number; isClosed: () => boolean },
  ) {
    super();
    this.opts = { dialect: `scout-${options.label}` };
  }

  private run<T>(what: string, op: () => Promise<T>): Promise<T> {
    if (this.options.isClosed())
      return Promise.reject(new StoreError(`store ${what} failed: store is closed`));
    return bounded(`${this.options.label} ${what}`, this.options.timeoutMs, op);
  }

  get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    return this.run('get', () => this.raw.get(key)) as Promise<StoredData<Value> | undefined>;
  }

  async set(key: string, value: unknown, ttl?: number): Promise<boolean> {
    await this.run('set', () => this.raw.set(key, value, ttl));
    return true;
  }

  delete(key: string): Promise<boolean> {
    return this.run('delete', () => this.raw.delete(key));
  }

  clear(): Promise<void> {
    return this.run('clear', () => this.raw.clear());
  }
}
