/**
 * What the MCP tests share: the real `@modelcontextprotocol/server-everything` (stdio, or Streamable
 * HTTP on a free loopback port), the misbehaving fixture server, and mcp.json files for them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
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

/** A loopback port free right now (server-everything takes its port from PORT and cannot report it). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface EverythingHttp {
  url: string;
  stop(): Promise<void>;
}

/** server-everything over Streamable HTTP; resolves once it listens. */
export async function startEverythingHttp(): Promise<EverythingHttp> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const port = await freePort();
    const child = spawn(process.execPath, [EVERYTHING_ENTRY, 'streamableHttp'], {
      env: { PATH: process.env.PATH ?? '', PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const listening = await waitForListening(child);
    if (listening) {
      return {
        url: `http://127.0.0.1:${port}/mcp`,
        stop: () => stopChild(child),
      };
    }
    // Another test took the port between the probe and the bind: try another.
    await stopChild(child);
  }
  throw new Error('server-everything did not start over Streamable HTTP');
}

function waitForListening(child: ChildProcess): Promise<boolean> {
  return new Promise((resolve) => {
    let text = '';
    const timer = setTimeout(() => resolve(false), 15_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (/listening on port/i.test(text)) {
        clearTimeout(timer);
        resolve(true);
      }
      if (/already in use|Failed to start/i.test(text)) {
        clearTimeout(timer);
        resolve(false);
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(false);
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
