/**
 * `node --import ./test/helpers/module-log/register.mjs …`: appends every module URL the process
 * resolves through the ES module loader to the file named by MODULE_LOG (one per line), so a test
 * can check what a start loaded (test/core/start-loads.test.ts).
 */
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
