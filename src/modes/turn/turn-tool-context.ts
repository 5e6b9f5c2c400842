/** The context a turn's tools run in (agent rounds and plan steps alike). */
import type { ToolContext } from '../../tools/types.js';
import { UrlProvenance } from '../../tools/url-provenance.js';
import type { TurnContext } from '../types.js';

/** `signal` is the turn's own (Stop and its time limit), not just the user's Stop. */
export function turnToolContext(ctx: TurnContext, signal: AbortSignal): ToolContext {
  // Links the user sent may be fetched; links found only in pages or snippets may not (fetch policy).
  const provenance = new UrlProvenance();
  provenance.addFromText(ctx.message.text);
  const confirmTool = ctx.confirmTool;
  return {
    sessionKey: ctx.sessionKey,
    conversationId: ctx.message.conversationId,
    signal,
    question: ctx.message.text,
    provenance,
    ...(ctx.message.channelName ? { channelName: ctx.message.channelName } : {}),
    ...(ctx.message.userName ? { userName: ctx.message.userName } : {}),
    ...(ctx.message.workspaceSearch ? { workspaceSearch: ctx.message.workspaceSearch } : {}),
    ...(confirmTool ? { confirm: (request) => confirmTool(request, signal) } : {}),
  };
}
