/**
 * zod for Scout's own schemas: zod/mini, the tree-shakable functional form of zod 4
 * (`z.optional(s)`, `z.pipe(s, z.transform(f))`, `s.check(z.minLength(1))`). Classic zod binds
 * every method onto every schema it builds and is ~400 KB of source to compile; a start paid
 * ~30 ms for that (issue 19). Same core, so the same parsing, issues and JSON Schemas.
 *
 * zod/mini ships without a message locale ("Invalid input" for everything); classic zod installs
 * English when it loads. The messages reach users (MCP_CONFIG problems) and the model (rejected
 * tool arguments), so English is installed here, before any schema of Scout's parses.
 */
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());

export * from 'zod/mini';
