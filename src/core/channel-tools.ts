/**
 * A channel's view of the tool registry: `/tools disable github__*` hides those tools from the
 * model in that channel and refuses a call to them; `/tools enable …` brings them back (and, over
 * AGENT_MAX_TOOLS, chooses them before the others). Rules only narrow what AGENT_TOOLS allows (the
 * operator's list stays the ceiling). `question` is the turn's message: over the cap, the tools most
 * relevant to it are offered.
 */
import { matchesPattern } from '../tools/tool-patterns.js';
import type { ToolRegistry } from '../tools/types.js';

/** Rules kept per channel; the oldest go first past this. */
export const MAX_TOOL_RULES = 50;

export function toolEnabled(name: string, rules: readonly string[] = []): boolean {
  let enabled = true;
  for (const rule of rules) {
    if (matchesPattern(rule.slice(1), name)) enabled = rule.startsWith('+');
  }
  return enabled;
}

/** Adds a rule; an earlier rule with the same pattern is dropped (the new one decides anyway). */
export function addToolRule(rules: readonly string[] = [], enable: boolean, pattern: string): string[] {
  const next = rules.filter((r) => r.slice(1) !== pattern);
  next.push(`${enable ? '+' : '-'}${pattern}`);
  return next.slice(-MAX_TOOL_RULES);
}

/** Whether a `+` rule names the tool (`/tools enable` of it or a pattern that matches it). */
export function toolPreferred(name: string, rules: readonly string[] = []): boolean {
  return rules.some((rule) => rule.startsWith('+') && matchesPattern(rule.slice(1), name));
}

export function channelTools(
  registry: ToolRegistry,
  rules: readonly string[] | undefined,
  question?: string,
): ToolRegistry {
  const asked = question ? { question } : {};
  if (!rules || rules.length === 0)
    return { ...registry, definitions: (view) => registry.definitions({ ...asked, ...view }) };
  const on = (name: string) => toolEnabled(name, rules);
  const preferred = (name: string) => on(name) && toolPreferred(name, rules);
  const list = registry.list;
  return {
    ...registry,
    definitions: (view) => registry.definitions({ ...asked, ...view, enabled: on, preferred }),
    has: (name) => on(name) && registry.has(name),
    ...(list ? { list: () => list().filter((t) => on(t.name)) } : {}),
    execute: (name, rawArguments, context) =>
      on(name)
        ? registry.execute(name, rawArguments, context)
        : Promise.resolve({ isError: true, text: `The tool "${name}" is disabled in this channel.` }),
  };
}
