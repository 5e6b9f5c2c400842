/**
 * node:https, loaded with the first https:// request instead of at start: it brings TLS with it,
 * and a terminal `--once` against a local model never needs either (docs/performance.md, cold start).
 */
let loading: Promise<typeof import('node:https')> | undefined;

export function loadHttps(): Promise<typeof import('node:https')> {
  loading ??= import('node:https');
  return loading;
}
