/**
 * One fake for the calling `describe` block (or file): started before its first test, closed after
 * its last, optionally reset before each test. The returned object reads and writes through to the
 * running fake, so tests use it like the fake itself.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';

export function useSharedFake<F extends object & { close(): unknown }>(
  start: () => Promise<F>,
  reset?: (fake: F) => void,
): F {
  let current: F | undefined;
  beforeAll(async () => {
    current = await start();
  });
  afterAll(async () => {
    await current?.close();
    current = undefined;
  });
  if (reset) {
    beforeEach(() => {
      if (current) reset(current);
    });
  }
  return readThrough(() => current);
}

/**
 * An object that forwards every read and write to what `current()` returns at that moment, so a
 * fake started in a hook can be held in a `const` by the tests.
 */
export function readThrough<F extends object>(current: () => F | undefined): F {
  const now = (): F => {
    const fake = current();
    if (!fake) throw new Error('the fake is only available while its tests run');
    return fake;
  };
  return new Proxy({} as F, {
    get: (_target, key) => {
      const fake = now();
      const value = Reflect.get(fake, key);
      // Methods run on the fake itself, not on this proxy (private fields, `this` checks).
      return typeof value === 'function' ? value.bind(fake) : value;
    },
    set: (_target, key, value) => Reflect.set(now(), key, value),
  });
}
