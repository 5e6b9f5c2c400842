import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { DEFAULT_STORE_URL, parseStoreUrl } from '../../src/store/store-url.js';

describe('parseStoreUrl', () => {
  it('resolves sqlite paths relative to the working directory, or absolute ones as given', () => {
    expect(parseStoreUrl(DEFAULT_STORE_URL, '/srv/scout')).toEqual({
      backend: 'sqlite',
      file: path.resolve('/srv/scout', 'data/scout.sqlite'),
    });
    expect(parseStoreUrl('sqlite:///var/lib/scout.sqlite', '/srv/scout')).toEqual({
      backend: 'sqlite',
      file: '/var/lib/scout.sqlite',
    });
  });

  it('recognises memory and redis urls', () => {
    expect(parseStoreUrl('memory://')).toEqual({ backend: 'memory' });
    expect(parseStoreUrl('redis://:pw@cache:6379/2')).toEqual({
      backend: 'redis',
      url: 'redis://:pw@cache:6379/2',
    });
    expect(parseStoreUrl('rediss://cache:6380')).toMatchObject({ backend: 'redis' });
  });

  it('rejects other schemes and an empty sqlite path with a ConfigError naming STORE_URL', () => {
    expect(() => parseStoreUrl('postgres://db')).toThrow(ConfigError);
    expect(() => parseStoreUrl('postgres://db')).toThrow(/STORE_URL/);
    expect(() => parseStoreUrl('sqlite://')).toThrow(/STORE_URL/);
  });
});
