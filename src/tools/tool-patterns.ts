/**
 * Tool-name patterns for AGENT_TOOLS and `/tools enable|disable`: `github__*`, `*__delete_*`.
 * `*` matches any run of characters; everything else is literal.
 */
export function matchesPattern(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`).test(name);
}
