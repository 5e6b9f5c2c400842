/** Loader hooks for register.mjs: record each resolved URL, change nothing. */
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  if (process.env.MODULE_LOG) appendFileSync(process.env.MODULE_LOG, `${result.url}\n`);
  return result;
}
