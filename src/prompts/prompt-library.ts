/**
 * Prompt templates from `prompts/*.md` with `{variable}` placeholders. A per-provider variant
 * `<name>.<provider>.md` (e.g. `agent.system.deepseek.md`) wins when present. A placeholder with no
 * value throws, naming it, so a typo never reaches a model as literal braces. `{{` and `}}` write
 * literal braces. A leading `<!-- … -->` comment (documentation for editors) is not sent.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProviderName } from '../llm/types.js';

export type PromptName =
  | 'chat.system'
  | 'agent.system'
  | 'answer.system'
  | 'plan.system'
  | 'summary.system'
  | 'memory.system'
  | 'error';

export const PROMPT_NAMES: readonly PromptName[] = [
  'chat.system',
  'agent.system',
  'answer.system',
  'plan.system',
  'summary.system',
  'memory.system',
  'error',
];

export interface PromptLibrary {
  /**
   * Renders `prompts/<name>.md` (or `<name>.<provider>.md` when present) with `{variable}`
   * placeholders. Throws when a placeholder has no value.
   */
  render(name: PromptName, variables: Record<string, string | number>, provider?: ProviderName): string;
}

export class PromptError extends Error {
  constructor(
    message: string,
    readonly template: string,
    readonly variable?: string,
  ) {
    super(message);
    this.name = 'PromptError';
  }
}

/** `{name}` placeholders; `{{`/`}}` escape braces; JSON such as `{"steps": …}` is left alone. */
const TOKEN = /\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const LEADING_COMMENT = /^\s*<!--[\s\S]*?-->\s*/;

/**
 * Values every template may use without the caller passing them: today's date, and the answer
 * language derived from `locale`.
 */
function withDerived(variables: Record<string, string | number>): Record<string, string | number> {
  const out = { ...variables };
  if (out['date'] === undefined) out['date'] = new Date().toISOString().slice(0, 10);
  if (out['language'] === undefined) {
    out['language'] = out['locale'] === 'zh' ? 'Simplified Chinese' : "the language of the user's message";
  }
  if (out['locale_hint'] === undefined) out['locale_hint'] = `Answer in ${out['language']}.`;
  return out;
}

/** Fills one template's text. Exported for tests and for callers holding their own text. */
export function renderTemplate(
  text: string,
  variables: Record<string, string | number>,
  templateName = 'template',
): string {
  return text.replace(LEADING_COMMENT, '').replace(TOKEN, (match, variable: string | undefined) => {
    if (match === '{{') return '{';
    if (match === '}}') return '}';
    const value = variables[variable!];
    if (value === undefined || value === null) {
      throw new PromptError(`prompt "${templateName}": no value for {${variable}}`, templateName, variable);
    }
    return String(value);
  });
}

/** The variables a template uses (derived ones included), for callers and tests. */
export function templateVariables(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.replace(LEADING_COMMENT, '').matchAll(TOKEN)) if (match[1]) names.add(match[1]);
  return [...names];
}

/** `prompts/` at the repository root, found from this file in `src/` or a built `dist/src/`. */
export function defaultPromptDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const candidate of [path.resolve(here, '../../prompts'), path.resolve(here, '../../../prompts')]) {
    if (existsSync(candidate)) return candidate;
  }
  return path.resolve(process.cwd(), 'prompts');
}

function libraryFrom(read: (file: string) => string | undefined, dir: string): PromptLibrary {
  return {
    render(name, variables, provider) {
      const variantFile = provider ? `${name}.${provider}.md` : undefined;
      const variant = variantFile ? read(variantFile) : undefined;
      const file = variant !== undefined ? variantFile! : `${name}.md`;
      const text = variant ?? read(file);
      if (text === undefined) throw new PromptError(`prompt "${name}" not found in ${dir}`, name);
      return renderTemplate(text, withDerived(variables), file.replace(/\.md$/, '')).trim();
    },
  };
}

/**
 * A library reading `dir` (default: the repository's `prompts/`) lazily, caching each file. Use in
 * tests with a temporary directory to try template edits.
 */
export function createPromptLibrary(dir: string = defaultPromptDir()): PromptLibrary {
  const cache = new Map<string, string | undefined>();
  const read = (file: string): string | undefined => {
    if (!cache.has(file)) {
      const full = path.join(dir, file);
      cache.set(file, existsSync(full) ? readFileSync(full, 'utf8') : undefined);
    }
    return cache.get(file);
  };
  return libraryFrom(read, dir);
}

/**
 * Reads every template in `dir` up front and checks the base templates exist, so a broken
 * deployment fails at start-up rather than at the first message.
 */
export async function loadPromptLibrary(dir: string = defaultPromptDir()): Promise<PromptLibrary> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dir)) {
    if (entry.endsWith('.md')) files.set(entry, await readFile(path.join(dir, entry), 'utf8'));
  }
  const missing = PROMPT_NAMES.filter((name) => !files.has(`${name}.md`));
  if (missing.length > 0) {
    throw new PromptError(
      `prompts missing in ${dir}: ${missing.map((n) => `${n}.md`).join(', ')}`,
      missing[0]!,
    );
  }
  return libraryFrom((file) => files.get(file), dir);
}
