/**
 * Slack, end to end: in agent mode the scripted model calls an MCP tool that may change something;
 * Slack shows it with Approve / Deny; another user's press is refused privately and nothing runs;
 * the asker's Approve runs it, and the buttons give way to the outcome.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../helpers/fake-openai-server.js';
import { describeWithShared } from '../helpers/fixtures.js';
import {
  dmThread,
  OTHER_USER,
  type SlackHarness,
  startSlackHarness,
  threadText,
  visibleText,
  waitForButton,
} from '../slack/slack-harness.js';
import { fixtureStdio, writeMcpJson } from './mcp-kit.js';

const thread = dmThread();

describeWithShared('Slack tool approval', () => {
  let s: SlackHarness | undefined;
  let file: ReturnType<typeof writeMcpJson> | undefined;
  afterEach(async () => {
    await s?.close();
    file?.remove();
  });

  it('runs a destructive MCP tool only after the asker approves', { timeout: 60_000 }, async () => {
    file = writeMcpJson({});
    const calls = join(file.dir, 'calls.txt');
    writeFileSync(calls, '');
    writeFileSync(
      file.path,
      JSON.stringify({ mcpServers: { notes: fixtureStdio([], { FIXTURE_CALLS_FILE: calls }) } }),
    );
    s = await startSlackHarness({
      env: { DEFAULT_MODE: 'agent', AGENT_MIN_RESULT_CHARS: '0', MCP_CONFIG: file.path },
    });
    s.h.llm.enqueue(
      toolCallReply([{ name: 'notes__delete_note', arguments: { id: 'n9' } }]),
      textReply('Done.'),
      textReply('Note n9 is deleted.'),
    );
    await s.event(thread.mention);
    const { message, press } = await waitForButton(s, thread, 'scout_tool_approve', 'the approval', 20_000);
    expect(visibleText(message.blocks)).toContain('notes__delete_note (Delete a note)');
    expect(visibleText(message.blocks)).toContain('"id": "n9"');

    await press({ user: OTHER_USER });
    await s.slack.waitFor(() => s!.slack.callsTo('chat.postEphemeral').length === 1, 5000, 'the refusal');
    expect(s.slack.callsTo('chat.postEphemeral')[0]!.args.text).toContain('approve or deny this tool call');
    expect(readFileSync(calls, 'utf8')).toBe('');

    await press({ user: thread.asker });
    await s.surface.idle();
    expect(readFileSync(calls, 'utf8')).toBe('delete_note {"id":"n9"}\n');
    expect(JSON.stringify(message.blocks)).not.toContain('scout_tool_approve');
    expect(visibleText(message.blocks)).toContain('Approved');
    expect(threadText(s, thread)).toContain('Note n9 is deleted.');
    expect(s.slack.violations).toEqual([]);
  });
});
