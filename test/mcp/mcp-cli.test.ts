/**
 * MCP from the command line: `--check` starts each server once and lists its state and tool count;
 * `--once` refuses every MCP tool call that needs approval (a `readOnlyHint` does not spare one) unless
 * `--yes` is given; over AGENT_MAX_TOOLS `--check` says how each request chooses its tools.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI, textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { runMain } from '../helpers/run-main.js';
import { everythingStdio, fixtureStdio, writeMcpJson } from './mcp-kit.js';

describe('MCP on the command line', { timeout: 90_000 }, () => {
  let llm: FakeOpenAI;
  let file: ReturnType<typeof writeMcpJson>;
  let calls: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    llm = await startFakeOpenAI();
    file = writeMcpJson({});
    calls = join(file.dir, 'calls.txt');
    writeFileSync(
      file.path,
      JSON.stringify({
        mcpServers: {
          everything: everythingStdio(),
          notes: fixtureStdio(['liar'], { FIXTURE_CALLS_FILE: calls }),
        },
      }),
    );
    env = {
      OPENAI_API_KEY: 'sk-cli-mcp-test',
      OPENAI_BASE_URL: llm.baseUrl,
      AGENT_FUNCTION_CALL_MODEL: 'openai/cli-model',
      STORE_URL: 'memory://',
      SEARCH_PROVIDER: 'none',
      DEFAULT_MODE: 'agent',
      AGENT_MIN_RESULT_CHARS: '0',
      MCP_CONFIG: file.path,
    };
  });
  afterAll(async () => {
    await llm.close();
    file.remove();
  });

  it('--check lists each MCP server with its state and tool count', async () => {
    const ok = await runMain(['--check'], env);
    expect(ok.stdout).toMatch(/MCP server everything \(stdio\): ready, \d+ tools/);
    expect(ok.stdout).toContain('MCP server notes (stdio): ready, 8 tools');
    expect(ok.stdout).not.toContain('AGENT_MAX_TOOLS');
    expect(ok.code).toBe(0);
    const many = writeMcpJson({ archive: fixtureStdio(['many=300', 'big-schema']) });
    try {
      const capped = await runMain(['--check'], { ...env, MCP_CONFIG: many.path });
      expect(capped.stdout).toContain('MCP server archive (stdio): ready, 307 tools');
      expect(capped.stdout).toMatch(
        /"bloated" of "archive" has an input schema of \d+ KB, over the 16 KB limit/,
      );
      expect(capped.stdout).toContain(
        'Tools: 310 (3 built-in, 307 from MCP servers), over AGENT_MAX_TOOLS=64: each request offers the built-in tools, those enabled with /tools enable, then the most relevant to the question, 64 in all',
      );
      expect(capped.code).toBe(0);
    } finally {
      many.remove();
    }
    const broken = writeMcpJson({ gone: { command: '/nonexistent/server' } });
    try {
      const bad = await runMain(['--check'], { ...env, MCP_CONFIG: broken.path });
      expect(bad.stdout).toContain('MCP server gone (stdio): failed — its command was not found');
      expect(bad.code).toBe(1);
    } finally {
      broken.remove();
    }
  });

  it('--once refuses a tool that merely claims readOnlyHint: only the config may trust it', async () => {
    writeFileSync(calls, '');
    llm.enqueue(
      toolCallReply([{ name: 'notes__purge_notes', arguments: {} }]),
      textReply('It was refused.'),
      textReply('I could not list the notes without your approval.'),
    );
    const refused = await runMain(['--once', 'List my notes'], env);
    expect(refused.stdout).toContain('without your approval');
    expect(readFileSync(calls, 'utf8')).toBe('');
    expect(JSON.stringify(llm.requests.slice(-2).map((r) => r.body))).toContain(
      'notes__purge_notes; it was not run',
    );
  });

  it('--once refuses a tool that changes something; --yes runs it', async () => {
    writeFileSync(calls, '');
    llm.enqueue(
      toolCallReply([{ name: 'notes__delete_note', arguments: { id: 'a' } }]),
      textReply('It was refused.'),
      textReply('I could not delete note a without your approval.'),
    );
    const refused = await runMain(['--once', 'Delete note a'], env);
    expect(refused.stdout).toContain('without your approval');
    expect(readFileSync(calls, 'utf8')).toBe('');
    expect(JSON.stringify(llm.requests.slice(-2).map((r) => r.body))).toContain(
      'notes__delete_note; it was not run',
    );

    llm.enqueue(
      toolCallReply([{ name: 'notes__delete_note', arguments: { id: 'a' } }]),
      textReply('Done.'),
      textReply('Deleted note a.'),
    );
    const approved = await runMain(['--once', 'Delete note a', '--yes'], env);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain('Deleted note a.');
    expect(readFileSync(calls, 'utf8')).toBe('delete_note {"id":"a"}\n');
  });
});
