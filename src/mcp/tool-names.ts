/**
 * Namespaced tool names: `<server>__<tool>`, kept to the rule every provider accepts for function
 * names (`^[a-zA-Z0-9_-]{1,64}$`). Characters outside it become `_`; a name too long is cut and
 * given a short hash so two long names stay distinct.
 */
import { createHash } from 'node:crypto';

export const TOOL_NAME_RULE = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_TOOL_NAME = 64;

export function namespacedToolName(server: string, tool: string): string {
  const name = `${server}__${tool.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  if (name.length <= MAX_TOOL_NAME) return name;
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_TOOL_NAME - hash.length - 1)}_${hash}`;
}
