/**
 * MCP servers as the agent meets them, through the real SDK over stdio: the misbehaving fixture
 * server and the real server-everything. Each bad input ends as a notice or a tool error within its
 * bound, and the other tools keep working.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, silentLogger } from '../../src/logger.js';
import type { McpServerConfig } from '../../src/mcp/mcp-config.js';
import { McpToolSource } from '../../src/mcp/mcp-tools.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import type { ToolContext, ToolRegistry } from '../../src/tools/types.js';
import { EVERYTHING_ENTRY, FIXTURE_ENTRY } from './mcp-kit.js';

const sources: McpToolSource[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(sources.splice(0).map((s) => s.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The fixture's tools that only read or misbehave harmlessly: the operator lets them run unasked. */
const HARMLESS = ['read_note', 'hang', 'crash', 'huge', 'add_tool', 'whoami', 'extra', 'match'];

function fixture(
  flags: string[] = [],
  env: Record<string, string> = {},
  extra: Partial<McpServerConfig> = {},
) {
  return {
    name: 'fx',
    transport: 'stdio',
    command: process.execPath,
    args: [FIXTURE_ENTRY, ...flags],
    env,
    autoApprove: HARMLESS,
    ...extra,
  } as McpServerConfig;
}

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'scout-mcp-fx-'));
  dirs.push(dir);
  return dir;
}

function setup(
  servers: McpServerConfig[],
  options: {
    startTimeoutMs?: number;
    firstListWaitMs?: number;
    logger?: ReturnType<typeof createLogger>;
  } = {},
) {
  const source = new McpToolSource(servers, {
    logger: options.logger ?? silentLogger,
    startTimeoutMs: options.startTimeoutMs ?? 10_000,
    firstListWaitMs: options.firstListWaitMs ?? 10_000,
    backoff: { baseMs: 50, maxMs: 200 },
    reservedNames: ['web_search', 'fetch_url'],
    secrets: ['sk-header-secret-123456'],
  });
  sources.push(source);
  const registry = createToolRegistry([], { logger: silentLogger, sources: [source] });
  return { source, registry };
}

const context = (overrides: Partial<ToolContext> = {}): ToolContext => ({
  sessionKey: 's',
  signal: new AbortController().signal,
  ...overrides,
});

async function prepared(registry: ToolRegistry): Promise<string[]> {
  return registry.prepare!(new AbortController().signal);
}

async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('MCP servers over stdio', { timeout: 30_000 }, () => {
  it('lists server-everything tools as everything__<tool> with their JSON Schema, and calls them', async () => {
    const { registry } = setup([
      {
        name: 'everything',
        transport: 'stdio',
        command: process.execPath,
        args: [EVERYTHING_ENTRY, 'stdio'],
        trusted: true,
      },
    ]);
    expect(registry.definitions()).toEqual([]); // lazily: nothing starts before a turn needs it
    expect(await prepared(registry)).toEqual([]);
    const names = registry.definitions().map((d) => d.name);
    expect(names).toEqual(expect.arrayContaining(['everything__echo', 'everything__get-sum']));
    const sum = registry.definitions().find((d) => d.name === 'everything__get-sum')!;
    expect(sum.parameters).toMatchObject({ type: 'object', required: ['a', 'b'] });
    expect(await registry.execute('everything__echo', '{"message":"hello"}', context())).toEqual({
      text: 'Echo: hello',
    });
    expect((await registry.execute('everything__get-sum', '{"a":2,"b":40}', context())).text).toContain('42');
    // Checked before the call goes out, against the server's schema.
    const wrong = await registry.execute('everything__get-sum', '{"a":"two","b":40}', context());
    expect(wrong.isError).toBe(true);
    expect(wrong.text).toContain('a: must be number');
    const image = await registry.execute('everything__get-tiny-image', '{}', context());
    expect(image.text).toMatch(/\[image: image\/png, [\d.]+ KB — not shown to the model\]/);
    const links = await registry.execute('everything__get-resource-links', '{"count":2}', context());
    expect(links.text).toMatch(/\[[^\]]+\]\(demo:\/\/resource\/dynamic\/\w+\/1\)/);
    const structured = await registry.execute(
      'everything__get-structured-content',
      '{"location":"Chicago"}',
      context(),
    );
    expect(JSON.parse(structured.text)).toHaveProperty('temperature');
  });

  it('a readOnlyHint never skips approval: only `trusted` or `autoApprove` in the config does', async () => {
    const dir = scratch();
    const calls = join(dir, 'calls.txt');
    writeFileSync(calls, '');
    const env = { FIXTURE_CALLS_FILE: calls };
    const { registry, source } = setup([
      fixture(['liar'], env, { autoApprove: undefined }),
      { ...fixture(['liar'], env), name: 'fx2', trusted: true },
      { ...fixture(['liar'], env), name: 'fx3', autoApprove: ['read_note'] },
    ]);
    await prepared(registry);
    const info = Object.fromEntries(registry.list!().map((t) => [t.name, t]));
    // purge_notes and read_note both claim readOnlyHint: true; neither claim counts.
    expect(info['fx__purge_notes']).toMatchObject({ server: 'fx', needsApproval: true });
    expect(info['fx__read_note']).toMatchObject({ needsApproval: true });
    expect(info['fx__delete_note']).toMatchObject({ needsApproval: true });
    expect(info['fx2__purge_notes']).toMatchObject({ needsApproval: false });
    expect(info['fx3__read_note']).toMatchObject({ needsApproval: false });
    expect(info['fx3__purge_notes']).toMatchObject({ needsApproval: true });
    // Nobody to ask (`--once` without `--yes`): the lying tool is refused and never reaches the server.
    const refused = await registry.execute('fx__purge_notes', '{}', context());
    expect(refused).toMatchObject({ isError: true });
    expect(refused.text).toContain('needs the user');
    expect(await registry.execute('fx3__purge_notes', '{}', context())).toMatchObject({ isError: true });
    expect(readFileSync(calls, 'utf8')).toBe('');
    expect((await registry.execute('fx3__read_note', '{"id":"1"}', context())).text).toBe('Note 1: buy milk');
    expect((await registry.execute('fx2__purge_notes', '{}', context())).text).toBe('Deleted every note');
    expect(readFileSync(calls, 'utf8')).toBe('read_note {"id":"1"}\npurge_notes {}\n');
    expect(source.status()).toEqual([
      { name: 'fx', transport: 'stdio', state: 'ready', tools: 8 },
      { name: 'fx2', transport: 'stdio', state: 'ready', tools: 8 },
      { name: 'fx3', transport: 'stdio', state: 'ready', tools: 8 },
    ]);
  });

  it('runs a tool that changes something only after approval, and never without a way to ask', async () => {
    const dir = scratch();
    const calls = join(dir, 'calls.txt');
    writeFileSync(calls, '');
    const { registry } = setup([fixture([], { FIXTURE_CALLS_FILE: calls })]);
    await prepared(registry);
    const refused = await registry.execute('fx__delete_note', '{"id":"7"}', context());
    expect(refused).toMatchObject({ isError: true });
    expect(refused.text).toContain('needs the user');
    let release: (ok: boolean) => void = () => {};
    const asked: unknown[] = [];
    const pending = registry.execute(
      'fx__delete_note',
      '{"id":"7"}',
      context({
        confirm: (request) => {
          asked.push(request);
          return new Promise((resolve) => {
            release = resolve;
          });
        },
      }),
    );
    await until(() => asked.length === 1);
    expect(asked[0]).toMatchObject({ tool: 'fx__delete_note', server: 'fx', title: 'Delete a note' });
    await new Promise((r) => setTimeout(r, 200));
    expect(readFileSync(calls, 'utf8')).toBe(''); // nothing ran while waiting
    release(true);
    expect(await pending).toEqual({ text: 'Deleted note 7' });
    expect(readFileSync(calls, 'utf8')).toBe('delete_note {"id":"7"}\n');
    const denied = await registry.execute(
      'fx__delete_note',
      '{"id":"8"}',
      context({ confirm: async () => false }),
    );
    expect(denied.text).toContain('did not approve');
    expect(readFileSync(calls, 'utf8')).toBe('delete_note {"id":"7"}\n');
  });

  it('a server that never answers at start is a notice within the start bound; other servers work', async () => {
    // The bound is for every server: the working one must start within it too, which took over 4 s
    // once on a machine busy with two other test runs (a fresh Node process loading the SDK).
    const { registry, source } = setup([{ ...fixture(['silent']), name: 'stuck' }, fixture()], {
      startTimeoutMs: 9_000,
    });
    // Its start bound ended the wait (the notice says so; without it the turn would wait on a
    // server that never answers, past the test's timeout), not "under 8 s".
    const notices = await prepared(registry);
    expect(notices).toEqual([expect.stringContaining('"stuck" is unavailable (it did not answer in time)')]);
    expect((await registry.execute('fx__read_note', '{"id":"1"}', context())).text).toBe('Note 1: buy milk');
    expect(source.status()[0]).toMatchObject({
      name: 'stuck',
      state: expect.stringMatching(/failed|starting/),
    });
  });

  it('a server stuck at tools/list holds no turn: one notice, the others’ tools at once', async () => {
    // A start bound of a minute: a turn that waited for this server would outlast the test.
    const { registry, source } = setup([{ ...fixture(['hang-list']), name: 'stuck' }, fixture()], {
      startTimeoutMs: 60_000,
      firstListWaitMs: 8_000,
    });
    const told: string[][] = [];
    for (let turn = 0; turn < 6; turn += 1) {
      told.push(await prepared(registry));
      expect((await registry.execute('fx__read_note', `{"id":"${turn}"}`, context())).text).toBe(
        `Note ${turn}: buy milk`,
      );
    }
    // Every turn ran while the server still had not listed its tools.
    expect(source.status()[0]).toMatchObject({ name: 'stuck', state: 'starting', tools: 0 });
    expect(told[0]).toEqual([expect.stringContaining('"stuck" is unavailable (still starting)')]);
    expect(told.slice(1)).toEqual([[], [], [], [], []]); // said once, not every turn
    expect(registry.definitions().map((d) => d.name)).toContain('fx__read_note');
    expect(registry.definitions().some((d) => d.name.startsWith('stuck__'))).toBe(false);
  });

  it('closing waits on no server that never answered its start: it is told to stop at once', {
    timeout: 20_000,
  }, async () => {
    const calls = join(scratch(), 'calls.txt');
    writeFileSync(calls, '');
    // Stuck at tools/list and deaf to its stdin closing, as a busy real server can be.
    const stuck = { ...fixture(['hang-list', 'stubborn'], { FIXTURE_CALLS_FILE: calls }), name: 'stuck' };
    const { registry, source } = setup([stuck], { startTimeoutMs: 60_000, firstListWaitMs: 50 });
    expect(await prepared(registry)).toEqual([
      expect.stringContaining('"stuck" is unavailable (still starting)'),
    ]);
    await vi.waitFor(() => expect(readFileSync(calls, 'utf8')).toBe('tools/list\n'), { timeout: 10_000 });
    // No timer may run out while it closes: a close that waits on the server's grace period never ends.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      await source.close();
    } finally {
      vi.useRealTimers();
    }
    await vi.waitFor(() => expect(readFileSync(calls, 'utf8')).toBe('tools/list\nSIGTERM\n'), {
      timeout: 10_000,
    });
  });

  it('an input schema over 16 KB leaves that tool out with one notice; requests stay small', async () => {
    const { registry } = setup([fixture(['big-schema'])]);
    const notices = await prepared(registry);
    expect(notices).toEqual([
      expect.stringMatching(
        /"bloated" of "fx" has an input schema of \d+ KB, over the 16 KB limit; it was left out/,
      ),
    ]);
    const definitions = registry.definitions();
    expect(definitions.map((d) => d.name)).not.toContain('fx__bloated');
    expect(definitions.map((d) => d.name)).toContain('fx__read_note');
    expect(JSON.stringify(definitions).length).toBeLessThan(16 * 1024);
    expect(await prepared(registry)).toEqual([]);
  });

  it('a backtracking `pattern` is checked by a linear-time engine: the event loop never stalls', async () => {
    const { registry } = setup([fixture(['evil-pattern'])]);
    await prepared(registry);
    // `^(a+)+$` against 29 a's and a "!": about 15 s of backtracking in V8's own engine. Counted in
    // CPU time this process used (a busy machine stretches the wall time, not that), a fifth of it.
    const cpuMs = (since: NodeJS.CpuUsage) => {
      const used = process.cpuUsage(since);
      return (used.user + used.system) / 1000;
    };
    const started = process.cpuUsage();
    const bad = await registry.execute('fx__match', JSON.stringify({ s: `${'a'.repeat(29)}!` }), context());
    expect(cpuMs(started)).toBeLessThan(3_000);
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain('s: must match pattern');
    expect((await registry.execute('fx__match', '{"s":"aaaa"}', context())).text).toBe('matched aaaa');
    // The server's result checked against its own output schema: the same engine.
    const outStarted = process.cpuUsage();
    const out = await registry.execute('fx__match_out', '{}', context({ confirm: async () => true }));
    expect(cpuMs(outStarted)).toBeLessThan(3_000);
    expect(out.isError).toBe(true);
    expect(out.text).toContain("does not match the tool's output schema");
  });

  it('a call that never answers is a tool error at its time limit', async () => {
    const { registry } = setup([fixture([], {}, { timeoutMs: 1_000 })]);
    await prepared(registry);
    // The call never answers: only its 1 s limit can end it (the error says so; without the limit
    // the test's timeout would), not "under 4 s".
    const result = await registry.execute('fx__hang', '{}', context());
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/timed out|did not answer/);
    expect((await registry.execute('fx__read_note', '{"id":"2"}', context())).text).toBe('Note 2: buy milk');
  });

  it('a server that crashes mid-call gives a tool error, restarts, and serves the next call', async () => {
    const { registry, source } = setup([fixture()]);
    await prepared(registry);
    const result = await registry.execute('fx__crash', '{}', context());
    expect(result).toMatchObject({ isError: true });
    expect(result.text).toContain('stopped during the call');
    // Meanwhile its tools stay known and say they are unavailable.
    await until(() => source.status()[0]!.state === 'ready');
    expect((await registry.execute('fx__read_note', '{"id":"3"}', context())).text).toBe('Note 3: buy milk');
    expect(await prepared(registry)).toEqual([expect.stringContaining('"fx" stopped; restarting')]);
  });

  it('a killed server restarts with backoff', async () => {
    const dir = scratch();
    const pids = join(dir, 'pids.txt');
    const { registry, source } = setup([fixture([], { FIXTURE_PID_FILE: pids })]);
    await prepared(registry);
    const first = Number(readFileSync(pids, 'utf8').trim());
    process.kill(first, 'SIGKILL');
    await until(() => source.status()[0]!.state !== 'ready');
    const unavailable = await registry.execute('fx__read_note', '{"id":"4"}', context());
    if (source.status()[0]!.state !== 'ready') expect(unavailable.text).toContain('tool unavailable');
    await until(() => source.status()[0]!.state === 'ready');
    const second = Number(readFileSync(pids, 'utf8').trim().split('\n').at(-1));
    expect(second).not.toBe(first);
    expect((await registry.execute('fx__read_note', '{"id":"4"}', context())).text).toBe('Note 4: buy milk');
  });

  // CPU-bound on the client side (the SDK's stdio ReadBuffer concatenates and rescans its buffer on
  // every 64 KB chunk: quadratic in the reply), so seconds on a busy machine: the test's own bound
  // is a hang guard above the call's 30 s limit plus a server start and restart, not a speed check.
  it('a 10 MB reply is a clear tool error, not a stalled turn', { timeout: 90_000 }, async () => {
    const { registry, source } = setup([fixture()]);
    await prepared(registry);
    const result = await registry.execute('fx__huge', '{}', context());
    expect(result.isError).toBe(true);
    expect(result.text).toContain('larger than 10 MB');
    // The restarted server is ready again (waited for, however long its start takes here).
    await until(() => source.status()[0]!.state === 'ready', 60_000);
  });

  it('a tool with an invalid schema or a clashing name is left out with a notice; the rest stay', async () => {
    const { registry } = setup([fixture(['bad-schema', 'clash'])]);
    const notices = await prepared(registry);
    expect(notices).toEqual(
      expect.arrayContaining([
        expect.stringContaining('"broken" of "fx" has an invalid input schema'),
        expect.stringContaining('"a_b" of "fx" clashes'),
      ]),
    );
    const names = registry.definitions().map((d) => d.name);
    expect(names).toContain('fx__a_b'); // the first of the two keeps the name
    expect(names).not.toContain('fx__broken');
    expect(names).toContain('fx__read_note');
    expect(await prepared(registry)).toEqual([]); // said once
  });

  it('non-MCP output on stdout is ignored with one notice', async () => {
    const { registry } = setup([fixture(['garbage'])]);
    const notices = await prepared(registry);
    expect((await registry.execute('fx__read_note', '{"id":"5"}', context())).text).toBe('Note 5: buy milk');
    const all = [...notices, ...(await prepared(registry))];
    expect(all.filter((n) => n.includes('non-MCP output'))).toHaveLength(1);
  });

  it('tools/list_changed refreshes the registry', async () => {
    const { registry } = setup([fixture()]);
    await prepared(registry);
    expect(registry.has('fx__extra')).toBe(false);
    await registry.execute('fx__add_tool', '{}', context());
    await until(() => registry.has('fx__extra'));
    expect((await registry.execute('fx__extra', '{}', context())).text).toBe('extra ran');
  });

  it('passes a server only its own env, and keeps env secrets out of logs', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'debug',
      secrets: ['sk-header-secret-123456'],
      destination: new Writable({
        write(chunk, _enc, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    });
    process.env['SCOUT_TEST_PARENT_SECRET'] = 'sk-parent-should-not-pass';
    try {
      const { registry } = setup(
        [
          fixture([], { FIXTURE_TOKEN: 'sk-header-secret-123456' }),
          { ...fixture(), name: 'gone', command: '/nonexistent/mcp-server' } as McpServerConfig,
        ],
        { logger },
      );
      const notices = await prepared(registry);
      expect(notices).toEqual([expect.stringContaining('"gone" is unavailable (its command was not found)')]);
      const env = JSON.parse((await registry.execute('fx__whoami', '{}', context())).text) as Record<
        string,
        string
      >;
      expect(env['FIXTURE_TOKEN']).toBe('sk-header-secret-123456');
      expect(env['SCOUT_TEST_PARENT_SECRET']).toBeUndefined();
    } finally {
      delete process.env['SCOUT_TEST_PARENT_SECRET'];
    }
    expect(lines.join('')).not.toContain('sk-header-secret-123456');
    expect(lines.join('')).toContain('MCP server ready');
  });
});
