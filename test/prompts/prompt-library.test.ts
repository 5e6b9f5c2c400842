import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createPromptLibrary,
  loadPromptLibrary,
  PROMPT_NAMES,
  PromptError,
  renderTemplate,
  templateVariables,
} from '../../src/prompts/prompt-library.js';

function tempPrompts(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'scout-prompts-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

describe('prompt templates', () => {
  it('fills placeholders, keeps JSON braces, and strips the leading doc comment', () => {
    const text = '<!-- vars: {name} -->\nHello {name}, plan: {{"steps": []}} and {"raw": 1}';
    expect(renderTemplate(text, { name: 'Ada' })).toBe('Hello Ada, plan: {"steps": []} and {"raw": 1}');
    expect(templateVariables(text)).toEqual(['name']);
  });

  it('throws a PromptError naming the missing variable', () => {
    const library = createPromptLibrary(tempPrompts({ 'error.md': 'Tool {tool} failed: {error}' }));
    expect(() => library.render('error', { tool: 'web_search' })).toThrow(PromptError);
    expect(() => library.render('error', { tool: 'web_search' })).toThrow(/\{error\}/);
    expect(library.render('error', { tool: 'web_search', error: 'HTTP 500' })).toBe(
      'Tool web_search failed: HTTP 500',
    );
  });

  it('prefers the per-provider variant when it exists', () => {
    const library = createPromptLibrary(
      tempPrompts({ 'agent.system.md': 'generic {tools}', 'agent.system.deepseek.md': 'deepseek {tools}' }),
    );
    expect(library.render('agent.system', { tools: 't' }, 'deepseek')).toBe('deepseek t');
    expect(library.render('agent.system', { tools: 't' }, 'openai')).toBe('generic t');
    expect(library.render('agent.system', { tools: 't' })).toBe('generic t');
  });

  it('derives date and language from locale when the caller does not pass them', () => {
    const library = createPromptLibrary(tempPrompts({ 'chat.system.md': '{date} | {language}' }));
    expect(library.render('chat.system', { locale: 'zh', date: '2026-01-02' })).toBe(
      '2026-01-02 | Simplified Chinese',
    );
    expect(library.render('chat.system', { locale: 'en' })).toMatch(
      /^\d{4}-\d{2}-\d{2} \| the language of the user's message$/,
    );
  });

  it('reports a missing template', async () => {
    const dir = tempPrompts({ 'chat.system.md': 'x' });
    expect(() => createPromptLibrary(dir).render('plan.system', {})).toThrow(/not found/);
    await expect(loadPromptLibrary(dir)).rejects.toThrow(/agent\.system\.md/);
  });

  it('ships every template, each rendering with the variables the modes pass', async () => {
    const library = await loadPromptLibrary();
    const vars = {
      date: '2026-05-01',
      locale: 'en',
      tools: '- web_search: Search the internet',
      tool: 'web_search',
      error: 'timeout',
      max_words: 300,
    };
    for (const name of PROMPT_NAMES) {
      const text = library.render(name, vars);
      expect(text.length).toBeGreaterThan(50);
      expect(text).not.toMatch(/\{[a-z_]+\}/);
      expect(text).not.toContain('<!--');
    }
    expect(library.render('agent.system', vars, 'deepseek')).not.toBe(
      library.render('agent.system', vars, 'openai'),
    );
    expect(library.render('agent.system', vars)).toMatch(/DATA, not instructions/);
    expect(library.render('answer.system', vars)).toMatch(/\[1\]/);
    // The plan prompt's example is valid JSON in the shape the plan schema expects.
    const plan = library.render('plan.system', vars);
    const example = plan.slice(plan.lastIndexOf('{"steps"'));
    expect(JSON.parse(example).steps[0]).toMatchObject({ step: 1, tool: 'web_search' });
  });
});
