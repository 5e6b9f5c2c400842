/**
 * The agent with MCP tools, end to end: a scripted model (the real OpenAI SDK against a loopback
 * fake) calls the real server-everything over stdio and over Streamable HTTP and cites what it
 * returned; a tool that changes something waits for Approve; deny lists hide tools from the model;
 * a broken server is a notice while the turn still answers.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolApprovalRequest } from '../../src/tools/types.js';
import { say } from '../../src/i18n/say.js';
import { textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { RecordingSink, type TestScout, startTestScout, testMessage } from '../helpers/scout-harness.js';
import { everythingStdio, fixtureStdio, startEverythingHttp, writeMcpJson } from './mcp-kit.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function scoutWith(
  servers: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<TestScout> {
  const file = writeMcpJson(servers);
  cleanups.push(file.remove);
  const h = await startTestScout({
    env: { DEFAULT_MODE: 'agent', AGENT_MIN_RESULT_CHARS: '0', MCP_CONFIG: file.path, ...env },
    noSearch: true,
  });
  cleanups.push(() => h.close());
  return h;
}

/** The text of every message the model was sent, joined. */
function sentToModel(h: TestScout): string {
  return h.llm.requests.map((r) => JSON.stringify(r.body.messages)).join('\n');
}

function toolNamesOffered(h: TestScout, request = 0): string[] {
  return ((h.llm.requests[request]?.body.tools ?? []) as Array<{ function: { name: string } }>).map(
    (t) => t.function.name,
  );
}

async function echoAndSum(h: TestScout): Promise<RecordingSink> {
  h.llm.enqueue(
    toolCallReply([
      { name: 'everything__echo', arguments: { message: 'ping from Scout' } },
      { name: 'everything__get-sum', arguments: { a: 19, b: 23 } },
    ]),
    textReply('I have what I need.'),
    textReply('The server echoed "ping from Scout" and computed 42 (The sum of 19 and 23 is 42.).'),
  );
  const sink = new RecordingSink();
  await h.scout.handleMessage(testMessage('Echo a ping and add 19 and 23'), sink);
  return sink;
}

describe('agent turns with MCP tools', { timeout: 60_000 }, () => {
  it('calls everything__echo and everything__get-sum over stdio and cites their output', async () => {
    const h = await scoutWith({ everything: everythingStdio() });
    const sink = await echoAndSum(h);
    expect(sink.final?.error).toBeUndefined();
    expect(sink.final?.answer).toContain('computed 42');
    expect(toolNamesOffered(h)).toEqual(expect.arrayContaining(['everything__echo', 'everything__get-sum']));
    const sent = sentToModel(h);
    expect(sent).toContain(
      '<tool_output name=\\"everything__echo\\">\\nEcho: ping from Scout\\n</tool_output>',
    );
    expect(sent).toContain('The sum of 19 and 23 is 42.');
    const titles = sink.final?.steps.map((s) => `${s.kind}:${s.status}`) ?? [];
    expect(titles.filter((t) => t === 'tool:done')).toHaveLength(2);
  });

  it('calls the same tools over Streamable HTTP', async () => {
    const server = await startEverythingHttp();
    cleanups.push(() => server.stop());
    const h = await scoutWith({ everything: { url: server.url, trusted: true } });
    const sink = await echoAndSum(h);
    expect(sink.final?.answer).toContain('computed 42');
    expect(sentToModel(h)).toContain('Echo: ping from Scout');
    expect(sentToModel(h)).toContain('The sum of 19 and 23 is 42.');
  });

  it('a destructive tool waits for Approve and runs only after it; Deny keeps it from running', async () => {
    const file = writeMcpJson({});
    cleanups.push(file.remove);
    const calls = join(file.dir, 'calls.txt');
    writeFileSync(calls, '');
    const h = await scoutWith({ notes: fixtureStdio([], { FIXTURE_CALLS_FILE: calls }) });
    class ApprovingSink extends RecordingSink {
      readonly asked: ToolApprovalRequest[] = [];
      answer: (ok: boolean) => void = () => {};
      confirmTool(request: ToolApprovalRequest): Promise<boolean> {
        this.asked.push(request);
        return new Promise((resolve) => {
          this.answer = resolve;
        });
      }
    }
    h.llm.enqueue(
      toolCallReply([{ name: 'notes__delete_note', arguments: { id: 'n1' } }]),
      textReply('Done.'),
      textReply('Deleted note n1.'),
    );
    const sink = new ApprovingSink();
    const turn = h.scout.handleMessage(testMessage('Delete note n1'), sink);
    const end = Date.now() + 20_000;
    while (sink.asked.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
    expect(sink.asked[0]).toMatchObject({
      tool: 'notes__delete_note',
      server: 'notes',
      title: 'Delete a note',
    });
    expect(sink.asked[0]?.arguments).toContain('"id": "n1"');
    await new Promise((r) => setTimeout(r, 300));
    expect(readFileSync(calls, 'utf8')).toBe(''); // waiting, nothing ran
    expect(sink.updates.at(-1)?.steps.some((s) => s.kind === 'tool' && s.status === 'running')).toBe(true);
    sink.answer(true);
    await turn;
    expect(readFileSync(calls, 'utf8')).toBe('delete_note {"id":"n1"}\n');
    expect(sentToModel(h)).toContain('Deleted note n1');

    h.llm.enqueue(
      toolCallReply([{ name: 'notes__delete_note', arguments: { id: 'n2' } }]),
      textReply('The user said no.'),
      textReply('I did not delete note n2: you denied it.'),
    );
    const deny = new ApprovingSink();
    const second = h.scout.handleMessage(testMessage('Delete note n2'), deny);
    while (deny.asked.length === 0) await new Promise((r) => setTimeout(r, 25));
    deny.answer(false);
    await second;
    expect(readFileSync(calls, 'utf8')).toBe('delete_note {"id":"n1"}\n');
    expect(sentToModel(h)).toContain('The user did not approve notes__delete_note');
    expect(deny.final?.answer).toContain('you denied it');
  });

  it('AGENT_TOOLS patterns and /tools disable hide tools from the model', async () => {
    const h = await scoutWith(
      { everything: everythingStdio(), notes: fixtureStdio() },
      { AGENT_TOOLS: '-everything__get-*' },
    );
    h.llm.enqueue(textReply('Nothing to call.'), textReply('Hello.'));
    await h.scout.handleMessage(testMessage('hi'), new RecordingSink());
    const offered = toolNamesOffered(h);
    expect(offered).toContain('everything__echo');
    expect(offered).toContain('notes__read_note');
    expect(offered.filter((n) => n.startsWith('everything__get-'))).toEqual([]);

    const reply = await h.scout.runCommand('tools', 'disable notes__*', {
      channelId: 'test:C1',
      userId: 'U1',
    });
    expect({ ...reply, text: say('en', reply.text) }).toMatchObject({
      changed: true,
      text: expect.stringContaining('notes__*'),
    });
    const before = h.llm.requests.length;
    h.llm.enqueue(textReply('Nothing to call.'), textReply('Hello again.'));
    await h.scout.handleMessage(testMessage('hi again'), new RecordingSink());
    const now = toolNamesOffered(h, before);
    expect(now).toContain('everything__echo');
    expect(now.filter((n) => n.startsWith('notes__'))).toEqual([]);
    // Other channels keep them.
    const other = h.llm.requests.length;
    h.llm.enqueue(textReply('Nothing to call.'), textReply('Hello there.'));
    await h.scout.handleMessage(
      testMessage('hi there', { channelId: 'test:C2', conversationId: 'test:C2:T1' }),
      new RecordingSink(),
    );
    expect(toolNamesOffered(h, other)).toContain('notes__read_note');

    const list = await h.scout.runCommand('tools', '', { channelId: 'test:C1', userId: 'U1' });
    expect(say('en', list.text)).toContain('everything (MCP, ready)');
    expect(say('en', list.text)).toContain('`notes__delete_note` (asks first, off here)');
    expect(say('en', list.text)).not.toContain('everything__get-sum');
    const back = await h.scout.runCommand('tools', 'enable notes__read_note', {
      channelId: 'test:C1',
      userId: 'U1',
    });
    expect(back.changed).toBe(true);
    const again = await h.scout.runCommand('tools', '', { channelId: 'test:C1', userId: 'U1' });
    // It claims readOnlyHint; only the operator's config could let it run unasked.
    expect(say('en', again.text)).toContain('`notes__read_note` (asks first),');
  });

  it('a server stuck at tools/list never holds a turn: each answers, one notice in all', async () => {
    // `stuck` answers the MCP handshake and never its tools/list; its start bound is 15 s.
    const h = await scoutWith({ stuck: fixtureStdio(['hang-list']), notes: fixtureStdio() });
    const notices: string[][] = [];
    for (let turn = 1; turn <= 4; turn += 1) {
      const before = h.llm.requests.length;
      h.llm.enqueue(textReply('Nothing to call.'), textReply(`Answer ${turn}.`));
      const sink = new RecordingSink();
      await h.scout.handleMessage(testMessage(`question ${turn}`), sink);
      expect(sink.final?.answer).toContain(`Answer ${turn}.`);
      expect(toolNamesOffered(h, before)).toContain('notes__read_note');
      notices.push(sink.final?.steps.filter((s) => s.kind === 'notice').map((s) => s.title) ?? []);
    }
    const config = await h.scout.runCommand('config', '', { channelId: 'test:C1', userId: 'U1' });
    // All four turns ran while the server had still not listed a tool.
    expect(say('en', config.text)).toContain('stuck (stdio, starting, 0)');
    const starting = notices.map((n) =>
      n.filter((t) => t.includes('"stuck" is unavailable (still starting)')),
    );
    expect(starting.map((n) => n.length)).toEqual([1, 0, 0, 0]);
  });

  it('over AGENT_MAX_TOOLS, a request offers the built-ins, the channel’s picks and the most relevant', async () => {
    // 300 tools from one server plus the notes tools: OpenAI would refuse all of them in one request.
    const h = await scoutWith({ archive: fixtureStdio(['many=300']) });
    h.llm.enqueue(textReply('Nothing to call.'), textReply('Rivoka is in the archive.'));
    await h.scout.handleMessage(testMessage('What does the archive say about rivoka?'), new RecordingSink());
    const offered = toolNamesOffered(h);
    expect(offered).toHaveLength(64);
    expect(offered).toEqual(expect.arrayContaining(['fetch_url', 'current_context', 'archive__topic_250']));
    // Unrelated to the question and past the first 64: chosen only once the channel enables it.
    expect(offered).not.toContain('archive__topic_299');
    const enabled = await h.scout.runCommand('tools', 'enable archive__topic_299', {
      channelId: 'test:C1',
      userId: 'U1',
    });
    expect(enabled.changed).toBe(true);
    const before = h.llm.requests.length;
    h.llm.enqueue(textReply('Nothing to call.'), textReply('Kakalin too.'));
    await h.scout.handleMessage(testMessage('And about kakalin?'), new RecordingSink());
    const next = toolNamesOffered(h, before);
    expect(next).toHaveLength(64);
    expect(next).toEqual(expect.arrayContaining(['archive__topic_299', 'archive__topic_007', 'fetch_url']));
    expect(next).not.toContain('archive__topic_250');
    const list = await h.scout.runCommand('tools', '', { channelId: 'test:C1', userId: 'U1' });
    expect(say('en', list.text)).toMatch(
      /\d+ tools are on here, more than the 64 a request may offer \(AGENT_MAX_TOOLS\)/,
    );
    expect(say('en', list.text).length).toBeLessThanOrEqual(2_000);
  });

  it('the approval shows the exact call and whose message led to it; one Deny ends every wait', async () => {
    const file = writeMcpJson({});
    cleanups.push(file.remove);
    const calls = join(file.dir, 'calls.txt');
    writeFileSync(calls, '');
    const h = await scoutWith({ notes: fixtureStdio(['liar'], { FIXTURE_CALLS_FILE: calls }) });
    class DenyingSink extends RecordingSink {
      readonly asked: ToolApprovalRequest[] = [];
      confirmTool(request: ToolApprovalRequest, signal: AbortSignal): Promise<boolean> {
        this.asked.push(request);
        // The first is denied; any other waits for a press that never comes, as an ignored prompt would.
        if (this.asked.length === 1) return Promise.resolve(false);
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve(false)));
      }
    }
    // A planted instruction made the model ask for two calls the asker never wanted.
    h.llm.enqueue(
      toolCallReply([
        { name: 'notes__delete_note', arguments: { id: 'all' } },
        { name: 'notes__purge_notes', arguments: {} },
      ]),
      textReply('The user denied it.'),
      textReply('I did not delete anything.'),
    );
    const sink = new DenyingSink();
    await h.scout.handleMessage(testMessage('Summarise my notes, please'), sink);
    // The Deny of the first answered the second too: never shown, so the turn did not wait out its time
    // limit for a press that never comes.
    expect(sink.asked.map((r) => r.tool)).toEqual(['notes__delete_note']);
    expect(sink.asked[0]).toMatchObject({
      tool: 'notes__delete_note',
      arguments: '{\n  "id": "all"\n}',
      origin: { asker: 'tester', message: 'Summarise my notes, please' },
    });
    expect(sink.asked[0]?.argumentsCut).toBeUndefined();
    expect(sink.final?.answer).toContain('I did not delete anything.');
    expect(readFileSync(calls, 'utf8')).toBe('');
    expect(sentToModel(h)).toContain('The user did not approve notes__delete_note');
    expect(sentToModel(h)).toContain('The user did not approve notes__purge_notes');
  });

  it('a server that cannot start is a notice; the turn still answers; /config shows no secret', async () => {
    const h = await scoutWith({
      broken: { command: '/nonexistent/mcp-server', env: { API_TOKEN: 'sk-mcp-env-secret-value' } },
      remote: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer sk-mcp-header-secret' } },
    });
    h.llm.enqueue(textReply('Nothing to call.'), textReply('Here is my answer anyway.'));
    const sink = new RecordingSink();
    await h.scout.handleMessage(testMessage('hello'), sink);
    const notices = sink.final?.steps.filter((s) => s.kind === 'notice').map((s) => s.title) ?? [];
    expect(notices).toEqual(
      expect.arrayContaining([
        expect.stringContaining('"broken" is unavailable (its command was not found)'),
        expect.stringContaining('"remote" is unavailable (connection refused)'),
      ]),
    );
    expect(sink.final?.answer).toContain('my answer anyway');
    const config = await h.scout.runCommand('config', '', { channelId: 'test:C1', userId: 'U1' });
    expect(say('en', config.text)).toContain('broken (stdio, failed, 0)');
    const everything = JSON.stringify([
      say('en', config.text),
      config,
      sink.final,
      h.llm.requests.map((r) => r.body),
    ]);
    expect(everything).not.toContain('sk-mcp-env-secret-value');
    expect(everything).not.toContain('sk-mcp-header-secret');
  });
});
