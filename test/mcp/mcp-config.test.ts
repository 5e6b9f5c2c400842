/** MCP_CONFIG as users write it (the desktop clients' mcp.json), and the names tools get from it. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.js';
import { ConfigError } from '../../src/errors.js';
import { mcpSecrets, parseMcpConfig } from '../../src/mcp/mcp-config.js';
import { namespacedToolName, TOOL_NAME_RULE } from '../../src/mcp/tool-names.js';
import { mcpResultToOutput } from '../../src/mcp/mcp-result.js';
import { matchesPattern } from '../../src/tools/tool-patterns.js';
import { writeMcpJson } from './mcp-kit.js';

describe('MCP_CONFIG', () => {
  it(`reads stdio and HTTP servers in the desktop-client convention, with \${VAR} from the environment`, () => {
    const { servers, problems } = parseMcpConfig(
      JSON.stringify({
        mcpServers: {
          files: {
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv'],
            env: { TOKEN: `\${FILES_TOKEN}` },
            autoApprove: ['read_text_file', 'list_directory'],
          },
          github: {
            url: 'https://mcp.example.com/mcp',
            headers: { Authorization: `Bearer \${GH}` },
            trusted: true,
          },
        },
      }),
      { FILES_TOKEN: 'files-secret-1', GH: 'ghp_secret_token' },
    );
    expect(problems).toEqual([]);
    expect(servers).toEqual([
      {
        name: 'files',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv'],
        env: { TOKEN: 'files-secret-1' },
        autoApprove: ['read_text_file', 'list_directory'],
      },
      {
        name: 'github',
        transport: 'http',
        url: 'https://mcp.example.com/mcp',
        headers: { Authorization: 'Bearer ghp_secret_token' },
        trusted: true,
      },
    ]);
    expect(mcpSecrets(servers)).toEqual(expect.arrayContaining(['files-secret-1', 'ghp_secret_token']));
  });

  it('names the server and field of each problem, never a value', () => {
    const { problems } = parseMcpConfig(
      JSON.stringify({
        mcpServers: {
          nocommand: { args: [] },
          badurl: { url: 'ftp://secret-host/x', headers: { Authorization: 'Bearer very-secret-value' } },
          typo: { command: 'x', evn: { A: 'sk-do-not-echo' } },
          'bad name!': { command: 'x' },
          missing: { command: 'x', env: { KEY: `\${NOT_SET_ANYWHERE}` } },
          loose: { command: 'x', autoApprove: 'delete_everything' },
        },
      }),
      {},
    );
    expect(problems).toEqual([
      expect.stringMatching(/^MCP_CONFIG: mcpServers\.nocommand\.command: /),
      expect.stringMatching(/^MCP_CONFIG: mcpServers\.badurl\.url: must be an http\(s\) URL/),
      expect.stringMatching(/^MCP_CONFIG: mcpServers\.typo.*evn/),
      'MCP_CONFIG: mcpServers.bad name!: a server name may use only letters, digits, _ and - (at most 32)',
      `MCP_CONFIG: mcpServers.missing.env: \${NOT_SET_ANYWHERE} is not set`,
      expect.stringMatching(/^MCP_CONFIG: mcpServers\.loose\.autoApprove: /),
    ]);
    expect(problems.join('\n')).not.toMatch(/secret|sk-do-not-echo/);
    expect(parseMcpConfig('{not json').problems).toEqual(['MCP_CONFIG: the file is not valid JSON']);
    expect(parseMcpConfig('{"servers": {}}').problems).toEqual(['MCP_CONFIG: expected {"mcpServers": {…}}']);
  });

  it('makes loadConfig fail with those lines, and a missing file names the variable', () => {
    const base = { OPENAI_API_KEY: 'sk-test-key-config', STORE_URL: 'memory://' };
    const file = writeMcpJson({ broken: { args: [] } });
    try {
      expect(() => loadConfig({ ...base, MCP_CONFIG: file.path })).toThrow(ConfigError);
      try {
        loadConfig({ ...base, MCP_CONFIG: '/nonexistent/mcp.json' });
      } catch (err) {
        expect((err as ConfigError).problems).toEqual(['MCP_CONFIG: cannot read the file (ENOENT)']);
      }
      expect(loadConfig(base).mcpServers).toEqual([]);
    } finally {
      file.remove();
    }
  });
});

describe('MCP tool names and output', () => {
  it('keeps every namespaced name to ^[a-zA-Z0-9_-]{1,64}$ and distinct', () => {
    expect(namespacedToolName('everything', 'get-sum')).toBe('everything__get-sum');
    expect(namespacedToolName('fs', 'read.file/v2')).toBe('fs__read_file_v2');
    const long1 = namespacedToolName('server', `${'x'.repeat(70)}1`);
    const long2 = namespacedToolName('server', `${'x'.repeat(70)}2`);
    expect(long1).toMatch(TOOL_NAME_RULE);
    expect(long1).not.toBe(long2);
  });

  it('matches AGENT_TOOLS patterns', () => {
    expect(matchesPattern('github__*', 'github__create_issue')).toBe(true);
    expect(matchesPattern('github__*', 'gitlab__x')).toBe(false);
    expect(matchesPattern('*__delete_*', 'fs__delete_file')).toBe(true);
    expect(matchesPattern('fetch_url', 'fetch_url')).toBe(true);
    expect(matchesPattern('a.b', 'axb')).toBe(false);
  });

  it('caps a huge result and marks the cut', () => {
    const out = mcpResultToOutput({ content: [{ type: 'text', text: 'y'.repeat(50_000) }] }, 1_000);
    expect(out.text).toMatch(/^y{1000}\n\[Output cut: 1000 of 50000 characters shown\.\]$/);
    expect(mcpResultToOutput({ content: [], isError: true })).toEqual({
      isError: true,
      text: 'The tool reported an error: (the tool returned no content)',
    });
  });
});
