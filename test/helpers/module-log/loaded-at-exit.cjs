/**
 * `NODE_OPTIONS=--require …/loaded-at-exit.cjs`: when the process exits, writes to the file named by
 * LOADED_LOG what it loaded through require (the CommonJS cache: platform SDKs load that way, which
 * the ES module hooks beside this file do not see) and which of Node's own modules it loaded.
 */
const { writeFileSync } = require('node:fs');

process.on('exit', () => {
  if (!process.env.LOADED_LOG) return;
  const required = Object.entries(require.cache)
    .filter(([, mod]) => mod?.loaded)
    .map(([path]) => path);
  writeFileSync(process.env.LOADED_LOG, JSON.stringify({ required, builtins: process.moduleLoadList }));
});
