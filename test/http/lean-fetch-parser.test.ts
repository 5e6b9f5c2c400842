/**
 * The Slack client's fetch parses answers with Node's native HTTP parser. undici's `request` (its
 * earlier transport) parses with llhttp compiled to WebAssembly, and V8 tiers that module up in the
 * background on the first responses, briefly holding ~35 MiB: the whole of Scout's peak RSS under
 * 50 concurrent turns (docs/performance.md, Memory). Its own file: the compiled module is cached per
 * process, so only a process's first request shows whether one is compiled.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { leanFetchWithin } from '../../src/http/lean-fetch.js';

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

it('answers Web API calls without compiling a WebAssembly HTTP parser', async () => {
  const compiled: string[] = [];
  type Compile = (bytes: Uint8Array) => Promise<unknown>;
  type ModuleClass = new (bytes: Uint8Array) => object;
  const wasm = (globalThis as unknown as { WebAssembly: { Module: ModuleClass; compile: Compile } })
    .WebAssembly;
  const { Module, compile } = wasm;
  wasm.Module = class extends Module {
    constructor(bytes: Uint8Array) {
      compiled.push('Module');
      super(bytes);
    }
  };
  wasm.compile = (bytes) => {
    compiled.push('compile');
    return compile(bytes);
  };
  try {
    const call = leanFetchWithin(5_000);
    for (let i = 0; i < 3; i++) {
      const res = await call(`${base}/api/chat.postMessage`, {
        method: 'POST',
        body: 'a=1',
        redirect: 'error',
      });
      expect(await res.json()).toEqual({ ok: true });
    }
  } finally {
    wasm.Module = Module;
    wasm.compile = compile;
  }
  expect(compiled).toEqual([]);
});
