/**
 * What the MCP tests share: the real `@modelcontextprotocol/server-everything` (stdio, or Streamable
 * HTTP on a loopback port from the OS), the misbehaving fixture server, and mcp.json files for them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '../..');
export const EVERYTHING_ENTRY = join(
  root,
  'node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
export const FIXTURE_ENTRY = join(import.meta.dirname, 'fixture-mcp-server.mjs');

/** server-everything over stdio, marked `trusted` as the README's example does (its tools only echo and add). */
export function everythingStdio(): Record<string, unknown> {
  return { command: process.execPath, args: [EVERYTHING_ENTRY, 'stdio'], trusted: true };
}

export function fixtureStdio(
  flags: string[] = [],
  env: Record<string, string> = {},
): Record<string, unknown> {
  return { command: process.execPath, args: [FIXTURE_ENTRY, ...flags], env };
}

/** A scratch folder with an mcp.json; `remove()` deletes it. */
export function writeMcpJson(servers: Record<string, unknown>): {
  path: string;
  dir: string;
  remove(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), 'scout-mcp-'));
  const path = join(dir, 'mcp.json');
  writeFileSync(path, JSON.stringify({ mcpServers: servers }, null, 2));
  return { path, dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface EverythingHttp {
  url: string;
  stop(): Promise<void>;
}

/** Preloaded into server-everything: it takes its port from PORT and logs PORT, not the port it got. */
const REPORT_PORT = join(import.meta.dirname, 'report-port.cjs');

/**
 * server-everything over Streamable HTTP on a port from the OS (PORT=0, the port read from what the
 * preload reports); resolves once it listens.
 */
export async function startEverythingHttp(): Promise<EverythingHttp> {
  const child = spawn(process.execPath, ['--require', REPORT_PORT, EVERYTHING_ENTRY, 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '', PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const port = await listeningPort(child);
  if (port === undefined) {
    await stopChild(child);
    throw new Error('server-everything did not start over Streamable HTTP');
  }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: () => stopChild(child),
  };
}

/** The port the child reports once it listens, or undefined when it exits first (or gives up). */
function listeningPort(child: ChildProcess): Promise<number | undefined> {
  return new Promise((resolve) => {
    let text = '';
    const timer = setTimeout(() => resolve(undefined), 15_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const port = /scout-test: listening on port (\d+)/.exec(text)?.[1];
      if (port) {
        clearTimeout(timer);
        resolve(Number(port));
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
