/**
 * Scenario 9: what an MCP tool call over stdio adds. The real server-everything runs as a child
 * process; `everything__echo` is called through Scout's tool registry (argument parsing and JSON
 * Schema check, time limit, result to text) and, for comparison, straight through the SDK client.
 * The first is what the agent pays per MCP call; the difference is Scout's own part of it.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { silentLogger } from '../../src/logger.js';
import { McpToolSource } from '../../src/mcp/mcp-tools.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { type BenchContext, pct, type ScenarioResult } from '../context.js';
import { summarize } from '../metrics.js';

const WARMUP_CALLS = 50;
const EVERYTHING = join(
  import.meta.dirname,
  '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);

export async function mcpToolCall(ctx: BenchContext): Promise<ScenarioResult> {
  const calls = ctx.options.turns * 20;
  ctx.log(`scenario 9: ${calls} MCP tool calls over stdio (server-everything echo)`);
  const server = { command: process.execPath, args: [EVERYTHING, 'stdio'] };
  // Trusted, as an operator marks a server whose tools only read: the calls measured run unasked.
  const source = new McpToolSource([{ name: 'everything', transport: 'stdio', trusted: true, ...server }], {
    logger: silentLogger,
    // The bench measures calls, not the start: wait for the listing however long it takes here.
    firstListWaitMs: 15_000,
  });
  const registry = createToolRegistry([], { logger: silentLogger, sources: [source] });
  const client = new Client({ name: 'bench', version: '1' });
  try {
    await registry.prepare?.(new AbortController().signal);
    await client.connect(new StdioClientTransport({ ...server, stderr: 'ignore' }));
    const context = { sessionKey: 'bench', signal: new AbortController().signal };
    const viaScout = await time(calls, async (i) => {
      const out = await registry.execute('everything__echo', JSON.stringify({ message: `m${i}` }), context);
      if (out.isError) throw new Error(out.text);
    });
    const viaSdk = await time(calls, async (i) => {
      await client.callTool({ name: 'echo', arguments: { message: `m${i}` } });
    });
    const scout = summarize(viaScout);
    const sdk = summarize(viaSdk);
    return {
      id: 9,
      name: `MCP tool call over stdio (${calls} calls of everything__echo)`,
      rows: [
        ['through Scout’s registry', pct(scout, 2)],
        ['SDK client alone', pct(sdk, 2)],
        ['Scout’s own part (p50)', `${(scout.p50 - sdk.p50).toFixed(2)} ms`],
      ],
      targets: [],
      data: { registryMs: scout, sdkMs: sdk },
    };
  } finally {
    await client.close().catch(() => undefined);
    await source.close();
  }
}

async function time(calls: number, call: (i: number) => Promise<void>): Promise<number[]> {
  for (let i = 0; i < WARMUP_CALLS; i += 1) await call(i);
  const samples: number[] = [];
  for (let i = 0; i < calls; i += 1) {
    const started = performance.now();
    await call(i);
    samples.push(performance.now() - started);
  }
  return samples;
}
