/**
 * Bolt's index requires @slack/socket-mode as it loads (its SocketModeReceiver imports it at the
 * top), even for an app in HTTP mode that never constructs one. socket-mode loads undici's index,
 * whose cookie module reads the `Headers` global, which loads Node's bundled fetch, which compiles
 * its WebAssembly HTTP parser: 13-16 MiB resident for the life of the process (docs/performance.md,
 * Memory). Called before Bolt loads, this puts a stand-in for the package in require.cache (Node
 * documents adding entries there) whose properties load the real package on first use: Bolt's
 * receiver gets the real SocketModeClient if it is ever constructed, and Scout's own socket pool
 * (socket-client.ts) requires it with its first connection.
 */
import Module, { createRequire } from 'node:module';

export function deferSocketMode(): void {
  const fromBolt = createRequire(createRequire(import.meta.url).resolve('@slack/bolt'));
  const path = fromBolt.resolve('@slack/socket-mode');
  // Already loaded (a socket pool opened, or a process that loaded it itself): nothing to save.
  if (fromBolt.cache[path]) return;
  let real: object | undefined;
  const load = (): object => {
    if (!real) {
      // The stand-in leaves the cache so that require loads the package for real, then caches it.
      delete fromBolt.cache[path];
      real = fromBolt('@slack/socket-mode') as object;
    }
    return real;
  };
  const standIn = new Module(path);
  standIn.filename = path;
  standIn.loaded = true;
  standIn.exports = new Proxy(
    {},
    {
      get: (_, key) => Reflect.get(load(), key),
      has: (_, key) => Reflect.has(load(), key),
      ownKeys: () => Reflect.ownKeys(load()),
      getOwnPropertyDescriptor: (_, key) => {
        const found = Reflect.getOwnPropertyDescriptor(load(), key);
        // A proxy may not report a property its (empty) target lacks as non-configurable.
        return found && { ...found, configurable: true };
      },
    },
  );
  fromBolt.cache[path] = standIn;
}
